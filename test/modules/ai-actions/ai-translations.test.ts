/**
 * The AI writes the account's texts in each language its banner speaks, where its knowledge says
 * them (no language model here): the standard categories in the built-in languages, durations in
 * any language the runtime's locale data has, and its English descriptions where the account has English.
 */
import { expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createItem, settledItem } from '../../helpers/storage-items.ts';
import { createTenant } from '../../helpers/tenants.ts';

const { t } = fileApp({ env: { RATE_LIMIT_MAX: '100000' } });

it('words a German account\'s new category and item in German, and in the English and French its banner speaks', async () => {
  const tenant = await createTenant(t.services, 'Sprachen');
  const token = tenant.tokens.account;
  const account = await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, {
    token: tenant.tokens.partner, body: { account: { default_language: 'de', ai_features: { auto_categorise: true, autofill: true } } },
  });
  expect(account.status).toBe(200);
  expect((await call(t.app, 'PATCH', '/api/v1/banner', { token, body: { banner: { languages: ['de', 'en', 'fr', 'sv'] } } })).status).toBe(200);

  const item = await settledItem(t.app, tenant, (await createItem(t.app, tenant, { name: '_ga' })).id);
  const category = (await call(t.app, 'GET', `/api/v1/categories/${item.category_id}`, { token })).body.data;
  expect(category).toMatchObject({
    name: 'Statistik', description: 'Messen, wie Besucher die Website nutzen, um sie zu verbessern.', default_language: 'de',
    translations: {
      en: { name: 'Analytics', description: 'Measure how visitors use the website, to improve it.' },
      fr: { name: 'Statistiques', description: 'Mesurent l’utilisation du site par les visiteurs, pour l’améliorer.' },
    },
  });
  // Swedish: the knowledge has no words for the category.
  expect(category.translations.sv).toBeUndefined();

  const english = 'Keeps a random client id that tells one visitor from another in Google Analytics';
  expect(item).toMatchObject({ description: english, duration: '2 Jahre', status: 'in_review' });
  expect(item.translations).toEqual({
    en: { description: english, duration: '2 years' },
    fr: { duration: '2 ans' },
    sv: { duration: '2 år' },
  });

  const actions = (await call(t.app, 'GET', '/api/v1/ai-actions', { token, query: { actionable_id: item.id, limit: '100' } })).body.data;
  const translated = actions.find((action: { action_type: string }) => action.action_type === 'translate');
  expect(translated).toMatchObject({ status: 'applied', suggested_params: { translations: item.translations }, previous_params: { translations: {} } });
  // Undone, the texts go; a person's own text in another language set since would stay.
  const reverted = await call(t.app, 'POST', `/api/v1/ai-actions/${translated.id}/revert`, { token });
  expect(reverted.status).toBe(200);
  expect((await call(t.app, 'GET', `/api/v1/storage-items/${item.id}`, { token })).body.data.translations).toEqual({});
});
