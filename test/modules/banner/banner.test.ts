import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { call, startApp, WITH_REDIS } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant } from '../../helpers/tenants.ts';

const { t, tenants: [tenant, other] } = fileApp({ env: { WIDGET_RATE_LIMIT_PER_MIN: '10000', RATE_LIMIT_MAX: '10000' }, tenants: ['Banner', 'Elsewhere'] });

const api = (method: string, url: string, body?: unknown, token = tenant.tokens.account) => call(t.app, method, url, { token, body });
const script = (accountId = tenant.account.id, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/widget/${accountId}.js`, headers });

/** The configuration embedded in a served script. */
function embedded(body: string) {
  const json = /\}\)\((\{.*\})\);\n$/s.exec(body)?.[1];
  if (!json) throw new Error('no configuration in the script');
  return JSON.parse(json);
}

describe('GET /widget/{account_id}.js', () => {
  it('serves the script with its configuration, an ETag and a short cache lifetime', async () => {
    await api('POST', '/api/v1/categories', { category: { name: 'Necessary', required: true } });
    const res = await script();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers.etag).toMatch(/^"[\w-]{32}"$/);
    expect(res.headers.vary).toBe('Accept-Encoding');
    const maxAge = Number(/max-age=(\d+)/.exec(String(res.headers['cache-control']))?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(300);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toContain('CookieConsent 3.1.0');
    expect(res.body).toContain('Released under the MIT License');
    const config = embedded(res.body);
    expect(config.account).toEqual({ id: tenant.account.id, name: tenant.account.name, default_language: 'en', domain: tenant.account.domain });
    expect(config.categories.map((c: { slug: string }) => c.slug)).toEqual(['necessary']);
    expect(config.texts.en).toMatchObject({ accept_all: 'Accept all', reject_all: 'Reject all', manage: 'Manage preferences', save: 'Save preferences' });
    expect(Object.keys(config.texts).sort()).toEqual(['de', 'en', 'es', 'fr', 'it', 'nl']);
  });

  it('answers 304 to a matching If-None-Match, and the same ETag until something changes', async () => {
    const first = await script();
    const again = await script(undefined, { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    const weak = await script(undefined, { 'if-none-match': `"other", W/${first.headers.etag}` });
    expect(weak.statusCode).toBe(304);
    expect((await script(undefined, { 'if-none-match': '"stale"' })).statusCode).toBe(200);
  });

  it('compresses with brotli or gzip when the client accepts it, to the same script', async () => {
    const plain = await script();
    const gz = await script(undefined, { 'accept-encoding': 'gzip, deflate' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    const br = await script(undefined, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const refused = await script(undefined, { 'accept-encoding': 'br;q=0, gzip' });
    expect(refused.headers['content-encoding']).toBe('gzip');
    // The budget for the whole script, CSS included.
    expect(gz.rawPayload.length).toBeLessThan(30 * 1024);
  });

  it('answers an unknown, malformed or deleted account with 404 and a JavaScript comment', async () => {
    for (const id of [newId(), 'not-an-id', 'x'.repeat(60)]) {
      const res = await script(id);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.body).toMatch(/^\/\*[^]*\*\/\n$/);
    }
    const doomed = await createTenant(t.services, 'Doomed');
    expect((await script(doomed.account.id)).statusCode).toBe(200);
    const gone = await call(t.app, 'DELETE', `/api/v1/accounts/${doomed.account.id}`, { token: doomed.tokens.partner });
    expect(gone.status).toBe(200);
    // The widget's account cache may hold the account for a few seconds; the banner is forgotten at once.
    const res = await script(doomed.account.id);
    expect(res.statusCode).toBe(404);
    expect(res.body).toMatch(/^\/\*/);
  });

  it('marks the code installed on the first load', async () => {
    const fresh = await createTenant(t.services, 'Installed');
    const installedAt = () => t.services.db.selectFrom('accounts').select('code_installed_at').where('id', '=', fresh.account.id).executeTakeFirstOrThrow();
    expect((await installedAt()).code_installed_at).toBeNull();
    await script(fresh.account.id);
    await expect.poll(async () => (await installedAt()).code_installed_at).not.toBeNull();
  });

  it('is rebuilt at once when the banner, a category or a finalised storage item changes', async () => {
    const etags = [String((await script()).headers.etag)];
    const changed = async () => {
      const res = await script();
      const etag = String(res.headers.etag);
      expect(etags).not.toContain(etag);
      etags.push(etag);
      return embedded(res.body);
    };
    expect((await api('PATCH', '/api/v1/banner', { banner: { layout: 'bar' } })).status).toBe(200);
    expect((await changed()).banner.layout).toBe('bar');

    const created = await api('POST', '/api/v1/categories', { category: { name: 'Analytics' } });
    expect((await changed()).categories.map((c: { slug: string }) => c.slug)).toEqual(['necessary', 'analytics']);

    const item = await api('POST', '/api/v1/storage-items', { storage_item: { name: '_ga', category_id: created.body.data.id, status: 'finalised', duration: '2 years' } });
    expect(item.status).toBe(201);
    const withItem = await changed();
    expect(withItem.categories[1].storage_items).toEqual([expect.objectContaining({ name: '_ga', duration: '2 years', storage_type: 'cookie' })]);

    await api('PUT', `/api/v1/categories/${created.body.data.id}`, { category: { description: 'Counts visits' } });
    expect((await changed()).categories[1].description).toBe('Counts visits');

    await api('DELETE', `/api/v1/storage-items/${item.body.data.id}`);
    expect((await changed()).categories[1].storage_items).toEqual([]);

    await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.partner, body: { account: { name: 'Renamed site' } } });
    expect((await changed()).account.name).toBe('Renamed site');
  });
});

describe('the banner settings', () => {
  /** The settings of an account that set nothing, as GET /banner answers them. */
  const DEFAULTS = {
    layout: 'box',
    position: 'bottom right',
    theme: { background: null, text: null, primary: null, primary_text: null },
    privacy_policy_url: null,
    show_reject_all: true,
    consent_expiry_days: 365,
    translations: {},
    language_sources: ['browser', 'page', 'default'],
    languages: ['en', 'de', 'fr', 'es', 'it', 'nl'],
    revision: 1,
    regional_rules: [{ regions: ['EEA', 'GB', 'CH'], mode: 'opt-in' }, { regions: ['US-PRIVACY-STATES'], mode: 'opt-out' }],
    default_mode: 'opt-in',
    regional_rules_customised: false,
    consent_mode: { ads_data_redaction: false, url_passthrough: false },
    tcf: {
      enabled: false, cmp_id: null, cmp_version: 1, vendor_ids: [], publisher_country_code: null,
      google_atp_ids: [], legitimate_interest_purposes: [], publisher_restrictions: [],
    },
  };

  it('GET /banner answers the defaults for an account that set nothing', async () => {
    const res = await api('GET', '/api/v1/banner', undefined, other.tokens.account);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { account_id: other.account.id, ...DEFAULTS } });
  });

  it('PATCH /banner changes only what is sent, merging theme colours and texts', async () => {
    const token = other.tokens.admin;
    let res = await api('PATCH', '/api/v1/banner', {
      banner: {
        position: 'top left',
        theme: { primary: '#1a73e8', text: '#222' },
        privacy_policy_url: 'https://elsewhere.example.com/privacy',
        consent_expiry_days: 180,
        translations: { de: { title: 'Kekse?' }, pt: { accept_all: 'Aceitar tudo' } },
      },
    }, token);
    expect(res.status).toBe(200);
    res = await api('PATCH', '/api/v1/banner', {
      banner: { show_reject_all: false, theme: { primary: null, background: '#ffffffcc' }, translations: { de: { description: 'Wir fragen.' }, pt: null } },
    }, token);
    expect(res.body.data).toEqual({
      ...DEFAULTS,
      account_id: other.account.id,
      position: 'top left',
      theme: { background: '#ffffffcc', text: '#222', primary: null, primary_text: null },
      privacy_policy_url: 'https://elsewhere.example.com/privacy',
      show_reject_all: false,
      consent_expiry_days: 180,
      translations: { de: { title: 'Kekse?', description: 'Wir fragen.' } },
    });
    expect((await api('GET', '/api/v1/banner', undefined, token)).body).toEqual(res.body);

    const config = await call(t.app, 'GET', `/widget/${other.account.id}/config.json`);
    expect(config.status).toBe(200);
    const { data } = config.body;
    expect(data.revision).toBe(1);
    expect(data.banner).toEqual({
      layout: 'box', position: 'top left', theme: res.body.data.theme, privacy_policy_url: 'https://elsewhere.example.com/privacy',
      show_reject_all: false, consent_expiry_days: 180, language_sources: ['browser', 'page', 'default'],
    });
    expect(data.texts.de).toMatchObject({ title: 'Kekse?', description: 'Wir fragen.', accept_all: 'Alle akzeptieren' });
    expect(data.texts.pt).toBeUndefined();
    // The script's configuration is config.json's, and the domain it keeps the visitor's choice on.
    expect(embedded((await script(other.account.id)).body)).toEqual({ ...data, account: { ...data.account, domain: other.account.domain } });
  });

  it('brings back the built-in words for a text set to null, and drops a language left without texts', async () => {
    const token = other.tokens.admin;
    await api('PATCH', '/api/v1/banner', { banner: { translations: { it: { title: 'Biscotti?', accept_all: 'Accetta' } } } }, token);
    let res = await api('PATCH', '/api/v1/banner', { banner: { translations: { it: { title: null } } } }, token);
    expect(res.body.data.translations.it).toEqual({ accept_all: 'Accetta' });
    res = await api('PATCH', '/api/v1/banner', { banner: { translations: { it: { title: null, accept_all: null } } } }, token);
    expect(res.body.data.translations.it).toBeUndefined();
    // An empty text is no text either.
    res = await api('PATCH', '/api/v1/banner', { banner: { translations: { it: { title: '  ', accept_all: 'Accetta' } } } }, token);
    expect(res.body.data.translations.it).toEqual({ accept_all: 'Accetta' });
    res = await api('PATCH', '/api/v1/banner', { banner: { translations: { it: { accept_all: '' } } } }, token);
    expect(res.body.data.translations.it).toBeUndefined();
    const { data } = (await call(t.app, 'GET', `/widget/${other.account.id}/config.json`)).body;
    expect(data.texts.it.accept_all).not.toBe('Accetta');
  });

  it('keeps a language the account adds beyond the built-in ones, completing it in English', async () => {
    const res = await api('PATCH', '/api/v1/banner', { banner: { translations: { sv: { accept_all: 'Acceptera alla' } } } }, other.tokens.admin);
    expect(res.status).toBe(200);
    const { data } = (await call(t.app, 'GET', `/widget/${other.account.id}/config.json`)).body;
    expect(data.texts.sv).toMatchObject({ accept_all: 'Acceptera alla', reject_all: 'Reject all' });
  });

  it('keeps a region\'s texts, completed from its language\'s own texts, then the built-in ones', async () => {
    const token = other.tokens.admin;
    const res = await api('PATCH', '/api/v1/banner', { banner: { translations: { 'de-CH': { title: 'Guetzli?' }, fr: { title: 'Biscuits ?' }, 'pt-BR': { save: 'Salvar' } } } }, token);
    expect(res.status).toBe(200);
    expect(res.body.data.translations['de-CH']).toEqual({ title: 'Guetzli?' });
    const { data } = (await call(t.app, 'GET', `/widget/${other.account.id}/config.json`)).body;
    // de-CH: its own title, the account's German description (set above), the built-in German buttons.
    expect(data.texts['de-CH']).toMatchObject({ title: 'Guetzli?', description: data.texts.de.description, accept_all: 'Alle akzeptieren' });
    expect(data.texts['pt-BR']).toMatchObject({ save: 'Salvar', accept_all: 'Accept all' });
    await api('PATCH', '/api/v1/banner', { banner: { translations: { 'de-CH': null, fr: null, 'pt-BR': null } } }, token);
  });

  it('POST /banner/preview answers the script with unsaved changes, checked like a save, and saves nothing', async () => {
    const before = (await api('GET', '/api/v1/banner', undefined, other.tokens.admin)).body;
    const served = (await script(other.account.id)).body;
    const res = await api('POST', '/api/v1/banner/preview', { banner: { layout: 'bar', translations: { en: { title: 'Preview title' } } } }, other.tokens.member);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const config = embedded(res.body);
    expect(config.account.id).toBe(other.account.id);
    expect(config.banner.layout).toBe('bar');
    expect(config.texts.en.title).toBe('Preview title');
    expect((await api('GET', '/api/v1/banner', undefined, other.tokens.admin)).body).toEqual(before);
    expect((await script(other.account.id)).body).toBe(served);
    const bad = await api('POST', '/api/v1/banner/preview', { banner: { privacy_policy_url: 'javascript:alert(1)' } }, other.tokens.admin);
    expect([bad.status, bad.body]).toEqual([422, { errors: [{ error: 'Privacy policy url is invalid' }] }]);
  });

  it('refuses bad values with 422 and changes nothing', async () => {
    const before = (await api('GET', '/api/v1/banner', undefined, other.tokens.admin)).body;
    const cases: [unknown, string][] = [
      [{ layout: 'popup' }, 'Layout is not included in the list'],
      [{ position: 'left' }, 'Position is not included in the list'],
      [{ theme: { primary: 'red' } }, 'Primary is invalid'],
      [{ theme: { background: '#12345' } }, 'Background is invalid'],
      [{ theme: { text: '#fff;}body{display:none' } }, 'Text is invalid'],
      [{ privacy_policy_url: 'javascript:alert(1)' }, 'Privacy policy url is invalid'],
      [{ privacy_policy_url: 'ftp://example.com/privacy' }, 'Privacy policy url is invalid'],
      [{ consent_expiry_days: 0 }, 'Consent expiry days must be greater than or equal to 1'],
      [{ consent_expiry_days: 396 }, 'Consent expiry days must be less than or equal to 395'],
      [{ consent_expiry_days: 30.5 }, 'Consent expiry days is invalid'],
      [{ show_reject_all: 'yes' }, 'Show reject all is invalid'],
      [{ translations: { xx: { title: 'Hi' } } }, 'Translations has an unknown language code: xx'],
      [{ translations: { EN: { title: 'Hi' } } }, 'Translations has an unknown language code: EN'],
      [{ translations: { 'de-ch': { title: 'Hi' } } }, 'Translations has an unknown language code: de-ch'],
      [{ translations: { 'xx-CH': { title: 'Hi' } } }, 'Translations has an unknown language code: xx-CH'],
      [{ translations: { 'de-': { title: 'Hi' } } }, 'Translations has an unknown language code: de-'],
      [{ translations: { 'de-CH-1996-1996-1996-1996-1996-1996-1996': { title: 'Hi' } } }, 'Translations has an unknown language code: de-CH-1996-1996-1996-1996-1996-1996…'],
      [{ translations: Object.fromEntries(['ar', 'bg', 'cs', 'da', 'el', 'et', 'fi', 'ga', 'hr', 'hu', 'is', 'ja', 'ko', 'lt', 'lv', 'mt', 'nb', 'pl', 'pt', 'ro', 'ru', 'sk', 'sl', 'sv', 'tr', 'uk', 'vi', 'zh', 'he', 'hi', 'id'].map((code) => [code, { title: 'x' }])) }, 'Translations has too many languages (maximum is 30)'],
      [{ translations: { en: { title: 'x'.repeat(2001) } } }, 'Title is too long (maximum is 2000 characters)'],
      [{ translations: { de: 5 } }, 'Translations is invalid'],
    ];
    for (const [banner, message] of cases) {
      const res = await api('PATCH', '/api/v1/banner', { banner }, other.tokens.admin);
      expect([JSON.stringify(banner), res.status, res.body]).toEqual([JSON.stringify(banner), 422, { errors: [{ error: message }] }]);
    }
    expect((await api('GET', '/api/v1/banner', undefined, other.tokens.admin)).body).toEqual(before);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await call(t.app, 'GET', '/api/v1/openapi.json')).body;
    expect(doc.paths['/api/v1/banner'].patch.operationId).toBe('updateBanner');
    expect(doc.paths['/api/v1/banner/reconsent'].post.operationId).toBe('requestReconsent');
    expect(doc.paths['/widget/{account_id}.js'].get.operationId).toBe('widgetScript');
  });
});

describe('the revision', () => {
  it('goes up when a category is added or removed and on reconsent, not when one is renamed', async () => {
    const fresh = await createTenant(t.services, 'Revisions');
    const token = fresh.tokens.account;
    const revision = async () => (await call(t.app, 'GET', `/api/v1/accounts/${fresh.account.id}`, { token })).body.revision;
    const configRevision = async () => (await call(t.app, 'GET', `/widget/${fresh.account.id}/config.json`)).body.data.revision;
    expect(await revision()).toBe(1);
    const created = await call(t.app, 'POST', '/api/v1/categories', { token, body: { category: { name: 'Marketing' } } });
    expect(await revision()).toBe(2);
    expect(await configRevision()).toBe(2);
    await call(t.app, 'PUT', `/api/v1/categories/${created.body.data.id}`, { token, body: { category: { name: 'Ads' } } });
    expect(await revision()).toBe(2);
    await call(t.app, 'DELETE', `/api/v1/categories/${created.body.data.id}`, { token });
    expect(await revision()).toBe(3);
    const again = await call(t.app, 'POST', '/api/v1/banner/reconsent', { token });
    expect(again.status).toBe(200);
    expect(again.body.data.revision).toBe(4);
    expect(await revision()).toBe(4);
    expect(await configRevision()).toBe(4);
    expect(embedded((await script(fresh.account.id)).body).revision).toBe(4);
  });

  it('follows what the banner shows: publishing or unpublishing raises it, an unpublished category does not', async () => {
    const fresh = await createTenant(t.services, 'Published');
    const token = fresh.tokens.account;
    const revision = async () => (await call(t.app, 'GET', `/api/v1/accounts/${fresh.account.id}`, { token })).body.revision;
    const hidden = await call(t.app, 'POST', '/api/v1/categories', { token, body: { category: { name: 'Experiments', published: false } } });
    expect(hidden.status).toBe(201);
    expect(await revision()).toBe(1);
    const path = `/api/v1/categories/${hidden.body.data.id}`;
    await call(t.app, 'PUT', path, { token, body: { category: { published: true } } });
    expect(await revision()).toBe(2);
    expect((await call(t.app, 'GET', `/widget/${fresh.account.id}/config.json`)).body.data.revision).toBe(2);
    await call(t.app, 'PUT', path, { token, body: { category: { published: true, name: 'Trials' } } });
    expect(await revision()).toBe(2);
    await call(t.app, 'PUT', path, { token, body: { category: { published: false } } });
    expect(await revision()).toBe(3);
    expect((await call(t.app, 'DELETE', path, { token })).status).toBe(200);
    expect(await revision()).toBe(3);
  });
});

describe('the GPC signal of a widget consent', () => {
  it('is stored from the body field, from the Sec-GPC header, and false without either', async () => {
    const necessary = (await api('GET', '/api/v1/categories')).body.data.find((c: { slug: string }) => c.slug === 'necessary');
    const consent = (sessionId: string, gpc?: boolean) => ({
      consent: { session_id: sessionId, gpc, user_preferences: { accept_type: 'necessary', accepted_categories: [necessary.id] } },
    });
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body, headers });
    expect((await post(consent('gpc-body', true))).status).toBe(201);
    expect((await post(consent('gpc-header'), { 'sec-gpc': '1' })).status).toBe(201);
    expect((await post(consent('gpc-none', false))).status).toBe(201);
    expect((await post(consent('gpc-absent'))).status).toBe(201);
    expect((await post({ consent: { ...consent('x').consent, gpc: 'yes' } })).status).toBe(422);
    const gpcOf = async (sessionId: string) => (await api('GET', `/api/v1/consents?session_id=${sessionId}`)).body.data[0].gpc;
    expect([await gpcOf('gpc-body'), await gpcOf('gpc-header'), await gpcOf('gpc-none'), await gpcOf('gpc-absent')]).toEqual([true, true, false, false]);
  });
});

describe.runIf(WITH_REDIS)('on several instances', () => {
  it('a banner change on one instance rebuilds the script on the other', async () => {
    const second = await startApp({ shareWith: t, env: { WIDGET_RATE_LIMIT_PER_MIN: '10000' } });
    try {
      const fromSecond = async () => embedded((await second.app.inject({ method: 'GET', url: `/widget/${tenant.account.id}.js` })).body);
      const before = await fromSecond();
      expect((await api('PATCH', '/api/v1/banner', { banner: { consent_expiry_days: before.banner.consent_expiry_days === 30 ? 31 : 30 } })).status).toBe(200);
      const wanted = before.banner.consent_expiry_days === 30 ? 31 : 30;
      await expect.poll(async () => (await fromSecond()).banner.consent_expiry_days, { timeout: 5_000 }).toBe(wanted);
      await api('POST', '/api/v1/categories', { category: { name: `Seen elsewhere` } });
      await expect.poll(async () => (await fromSecond()).categories.map((c: { slug: string }) => c.slug), { timeout: 5_000 }).toContain('seen-elsewhere');
    } finally {
      await second.close();
    }
  });
});
