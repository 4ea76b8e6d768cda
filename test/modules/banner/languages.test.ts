/**
 * The account's own texts in other languages (`translations`) of categories, storage items and
 * services, through HTTP, on the suite's engine; and the languages the banner speaks them in.
 */
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

const { t, tenants: [a, b] } = fileApp({ env: { RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000' }, tenants: ['Alpha', 'Beta'] });

const api = (method: string, url: string, token: string, body?: unknown) => call(t.app, method, url, { token, body });
const invalid = (...messages: string[]) => ({ errors: messages.map((error) => ({ error })) });
let made = 0;

/** Each resource: where it lives, its wrapper key, and the texts it has in other languages with their maximum lengths. */
const RESOURCES = [
  { path: '/api/v1/categories', key: 'category', texts: { name: 255, description: 2000 }, table: 'categories' },
  { path: '/api/v1/storage-items', key: 'storage_item', texts: { description: 2000, duration: 255 }, table: 'storage_items' },
  { path: '/api/v1/services', key: 'service', texts: { name: 255, description: 2000 }, table: 'services' },
] as const;

describe.each(RESOURCES)('the translations of $key', ({ path, key, texts, table }) => {
  const [first, second] = Object.keys(texts) as [string, string];
  const create = async (tenant: Tenant, fields: object = {}) => {
    const res = await api('POST', path, tenant.tokens.account, { [key]: { name: `Thing ${++made}`, ...fields } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { id: string; translations: object };
  };
  const change = async (id: string, translations: unknown, token = a.tokens.account) => api('PUT', `${path}/${id}`, token, { [key]: { translations } });
  const stored = async (id: string) =>
    (await t.services.db.selectFrom(table).select('translations').where('id', '=', id).executeTakeFirstOrThrow()).translations;

  it('are stored trimmed by language, answered, and changed one language and one text at a time', async () => {
    const created = await create(a, { translations: { de: { [first]: ' Erstens ' }, fr: { [first]: 'Premier', [second]: 'Second' } } });
    expect(created.translations).toEqual({ de: { [first]: 'Erstens' }, fr: { [first]: 'Premier', [second]: 'Second' } });
    const steps: [unknown, object][] = [
      [{ de: { [second]: 'Zweitens' } }, { de: { [first]: 'Erstens', [second]: 'Zweitens' }, fr: { [first]: 'Premier', [second]: 'Second' } }],
      [{ de: { [first]: null }, 'de-CH': { [first]: 'Zerscht' } }, { de: { [second]: 'Zweitens' }, 'de-CH': { [first]: 'Zerscht' }, fr: { [first]: 'Premier', [second]: 'Second' } }],
      // An empty or blank text is none; a language left without texts goes.
      [{ de: { [second]: '  ' }, 'de-CH': { [first]: '' } }, { fr: { [first]: 'Premier', [second]: 'Second' } }],
      [{ fr: null }, {}],
    ];
    for (const [sent, expected] of steps) {
      const res = await change(created.id, sent);
      expect([JSON.stringify(sent), res.status, res.body.data?.translations]).toEqual([JSON.stringify(sent), 200, expected]);
    }
    await change(created.id, { it: { [first]: 'Primo' } });
    // A change of another field leaves them as they are.
    expect((await api('PUT', `${path}/${created.id}`, a.tokens.account, { [key]: { description: 'Plain' } })).body.data.translations).toEqual({ it: { [first]: 'Primo' } });
    expect((await api('GET', `${path}/${created.id}`, a.tokens.member)).body.data.translations).toEqual({ it: { [first]: 'Primo' } });
    expect(await stored(created.id)).toEqual({ it: { [first]: 'Primo' } });
  });

  it('refuse an unknown language code, a text too long, a wrong shape and too many languages with 422, and nothing changes', async () => {
    const created = await create(a, { translations: { nl: { [first]: 'Eerste' } } });
    const codes = ['ar', 'bg', 'cs', 'da', 'el', 'et', 'fi', 'ga', 'hr', 'hu', 'is', 'ja', 'ko', 'lt', 'lv', 'mt', 'nb', 'pl', 'pt', 'ro', 'ru', 'sk', 'sl', 'sv', 'tr', 'uk', 'vi', 'zh', 'he', 'hi'];
    const cases: [unknown, string][] = [
      [{ xx: { [first]: 'x' } }, 'Translations has an unknown language code: xx'],
      [{ EN: { [first]: 'x' } }, 'Translations has an unknown language code: EN'],
      [{ 'de-ch': { [first]: 'x' } }, 'Translations has an unknown language code: de-ch'],
      [{ de: { [first]: 'x'.repeat(texts[first as keyof typeof texts] + 1) } }, `${first.charAt(0).toUpperCase()}${first.slice(1)} is too long (maximum is ${texts[first as keyof typeof texts]} characters)`],
      [{ de: { [second]: 'x'.repeat(texts[second as keyof typeof texts] + 1) } }, `${second.charAt(0).toUpperCase()}${second.slice(1)} is too long (maximum is ${texts[second as keyof typeof texts]} characters)`],
      [{ de: { [first]: 5 } }, `${first.charAt(0).toUpperCase()}${first.slice(1)} is invalid`],
      [{ de: 'Hallo' }, 'Translations is invalid'],
      ['de', 'Translations is invalid'],
      // With the one stored, 31 languages.
      [Object.fromEntries(codes.map((code) => [code, { [first]: 'x' }])), 'Translations has too many languages (maximum is 30)'],
    ];
    for (const [translations, message] of cases) {
      const sent = JSON.stringify(translations);
      const changed = await change(created.id, translations);
      expect([sent, changed.status, changed.body]).toEqual([sent, 422, invalid(message)]);
      // Creating with them too, but for the one stored: 30 languages are fine there.
      if (message.includes('too many')) continue;
      const res = await api('POST', path, a.tokens.account, { [key]: { name: `Refused ${++made}`, translations } });
      expect([sent, res.status, res.body]).toEqual([sent, 422, invalid(message)]);
    }
    expect(await stored(created.id)).toEqual({ nl: { [first]: 'Eerste' } });
    const thirty = await create(a, { translations: Object.fromEntries(codes.map((code) => [code, { [first]: 'x' }])) });
    expect(Object.keys(thirty.translations)).toHaveLength(30);
  });

  it('belong to their account: another account\'s record is 404 and unchanged, a member may read but not write', async () => {
    const theirs = await create(b, { translations: { de: { [first]: 'Geheim' } } });
    const res = await change(theirs.id, { de: { [first]: 'Übernommen' } });
    expect(res.status).toBe(404);
    expect(await stored(theirs.id)).toEqual({ de: { [first]: 'Geheim' } });
    const list = await api('GET', `${path}?limit=100`, a.tokens.account);
    expect(JSON.stringify(list.body)).not.toContain('Geheim');
    const ours = await create(a);
    expect((await change(ours.id, { de: { [first]: 'Nein' } }, a.tokens.member)).status).toBe(403);
    expect(await stored(ours.id)).toEqual({});
  });
});

it("leaves a storage item's name untranslated: the cookie's name is its own", async () => {
  const res = await api('POST', '/api/v1/storage-items', a.tokens.account, { storage_item: { name: '_pk_id', translations: { de: { name: '_pk_de', description: 'Zählt' } } } });
  expect(res.status).toBe(201);
  expect(res.body.data.translations).toEqual({ de: { description: 'Zählt' } });
});

describe('in the banner', () => {
  it('only the languages the banner speaks travel with the script, a region\'s completed from its language\'s', async () => {
    const tenant = await createTenant(t.services, 'Spoken');
    const token = tenant.tokens.account;
    const banner = await api('PATCH', '/api/v1/banner', token, { banner: { languages: ['de-CH', 'fr'], language_sources: ['page', 'browser'] } });
    expect(banner.status).toBe(200);
    expect(banner.body.data).toMatchObject({ languages: ['en', 'de-CH', 'fr'], language_sources: ['page', 'browser'] });
    const category = await api('POST', '/api/v1/categories', token, {
      category: { name: 'Statistics', translations: { de: { name: 'Statistik', description: 'Zählt Besuche.' }, 'de-CH': { name: 'Statistik (CH)' }, es: { name: 'Estadísticas' } } },
    });
    await api('POST', '/api/v1/storage-items', token, {
      storage_item: { name: '_pk_id', category_id: category.body.data.id, status: 'finalised', duration: '13 months', translations: { fr: { duration: '13 mois' } } },
    });
    await api('POST', '/api/v1/services', token, { service: { name: 'Matomo', category_id: category.body.data.id, translations: { it: { name: 'Matomo IT' } } } });
    const { data } = (await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`)).body;
    expect(Object.keys(data.texts)).toEqual(['en', 'de-CH', 'fr']);
    expect(data.banner.language_sources).toEqual(['page', 'browser']);
    expect(data.texts['de-CH'].accept_all).toBe('Alle akzeptieren');
    const [shown] = data.categories;
    expect(shown.translations).toEqual({ 'de-CH': { name: 'Statistik (CH)', description: 'Zählt Besuche.' } });
    expect(shown.storage_items[0].translations).toEqual({ fr: { duration: '13 mois' } });
    expect(shown.services[0].translations).toEqual({});
    // Back to the default languages: every built-in one, and Spanish is spoken again.
    const reset = await api('PATCH', '/api/v1/banner', token, { banner: { languages: null } });
    expect(reset.body.data.languages).toEqual(['en', 'de', 'fr', 'es', 'it', 'nl']);
    const again = (await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`)).body.data;
    expect(again.categories[0].translations).toEqual({
      de: { name: 'Statistik', description: 'Zählt Besuche.' }, es: { name: 'Estadísticas' },
    });
    expect(again.categories[0].services[0].translations).toEqual({ it: { name: 'Matomo IT' } });
  });

  it('refuses a language source or a language nobody knows with 422', async () => {
    const cases: [unknown, string][] = [
      [{ language_sources: ['browser', 'cookie'] }, 'Language sources is not included in the list'],
      [{ language_sources: [] }, 'Language sources is invalid'],
      [{ language_sources: ['page', 'page'] }, 'Language sources is invalid'],
      [{ language_sources: 'browser' }, 'Language sources is invalid'],
      [{ languages: ['de', 'xx'] }, 'Languages has an unknown language code: xx'],
      [{ languages: ['DE'] }, 'Languages has an unknown language code: DE'],
      [{ languages: [] }, 'Languages is invalid'],
      [{ languages: ['de', 'de'] }, 'Languages is invalid'],
      [{ languages: 'de' }, 'Languages is invalid'],
    ];
    const before = (await api('GET', '/api/v1/banner', b.tokens.account)).body;
    for (const [banner, message] of cases) {
      const res = await api('PATCH', '/api/v1/banner', b.tokens.account, { banner });
      expect([JSON.stringify(banner), res.status, res.body]).toEqual([JSON.stringify(banner), 422, invalid(message)]);
    }
    expect((await api('GET', '/api/v1/banner', b.tokens.account)).body).toEqual(before);
  });
});
