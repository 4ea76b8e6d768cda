/**
 * What the banner keeps besides its consent cookie (the GPP and TCF cookies, the region in session
 * storage), found by a scan: described in the account's language and filed in its required
 * category, like the consent cookie; a look-alike of another storage type, or a name the banner
 * does not use, is left alone.
 */
import { expect, it } from 'vitest';
import { recordScannedItems } from '../../../src/modules/storage-items/scanned-items.service.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant } from '../../helpers/tenants.ts';

const { t } = fileApp();

it('files the banner\'s GPP, TCF and region storage as necessary, in the account\'s language', async () => {
  const tenant = await createTenant(t.services, 'Own storage');
  const token = tenant.tokens.account;
  expect((await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token, body: { account: { default_language: 'fr' } } })).status).toBe(200);
  const necessary = (await call(t.app, 'POST', '/api/v1/categories', { token, body: { category: { name: 'Nécessaires', required: true } } })).body.data;
  const seen = { domain: 'shop.example', duration: 'session', path: '/', same_site: null, partitioned: false, set_by: null };
  const { created } = await recordScannedItems(t.services.db, tenant.account.id, [
    { ...seen, name: '__gpp', storage_type: 'cookie' },
    { ...seen, name: '__gpp_sid', storage_type: 'cookie' },
    { ...seen, name: 'euconsent-v2', storage_type: 'cookie' },
    { ...seen, name: 'consentry_region', storage_type: 'session_storage' },
    { ...seen, name: 'consentry_region', storage_type: 'cookie' },
    { ...seen, name: '__gpp_other', storage_type: 'cookie' },
  ], new Date());
  const byName = Object.fromEntries(created.map((row) => [`${row.storage_type}:${row.name}`, row]));
  for (const key of ['cookie:__gpp', 'cookie:__gpp_sid', 'cookie:euconsent-v2', 'session_storage:consentry_region']) {
    expect(byName[key], key).toMatchObject({ category_id: necessary.id });
  }
  expect(byName['cookie:__gpp'].description).toMatch(/^Conserve vos choix de confidentialité/);
  expect(byName['cookie:euconsent-v2'].description).toMatch(/Transparency and Consent Framework/);
  expect(byName['session_storage:consentry_region'].description).toMatch(/^Retient pour cette visite/);
  for (const key of ['cookie:consentry_region', 'cookie:__gpp_other']) expect(byName[key], key).toMatchObject({ category_id: null, description: '' });
});
