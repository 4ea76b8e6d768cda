import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { declarationAccount, HOSTILE_NAME, HOSTILE_PURPOSE } from '../../helpers/declaration-account.ts';
import { fileApp } from '../../helpers/file-app.ts';

const { t, tenants: [tenant, empty] } = fileApp({ env: { WIDGET_RATE_LIMIT_PER_MIN: '10000', RATE_LIMIT_MAX: '10000' }, tenants: ['Declared', 'Empty'] });

beforeAll(async () => {
  await declarationAccount(t.app, tenant);
});

const json = (accountId: string, query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  call(t.app, 'GET', `/widget/${accountId}/declaration.json`, { query, headers });
const page = (accountId: string, query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/widget/${accountId}/declaration`, query, headers });

describe('GET /widget/{id}/declaration.json', () => {
  it('lists the finalised items by published category, with provider, purpose, duration and type, in the language asked', async () => {
    const res = await json(tenant.account.id, { lang: 'de-AT' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    const data = res.body.data;
    expect(data.language).toBe('de');
    expect(data.languages).toEqual(['en', 'de']);
    expect(data.texts.provider).toBe('Anbieter');
    expect(data.categories.map((c: { name: string }) => c.name)).toEqual(['Notwendig', 'Statistik', 'Werbung']);
    const [necessary, analytics, marketing] = data.categories;
    expect(necessary).toMatchObject({ required: true, items: [{ name: 'cart', provider: 'Shop Ltd', purpose: 'Merkt sich den Warenkorb.', duration: 'Sitzung', type: 'cookie' }] });
    expect(analytics.items).toEqual([
      { name: '_pk_id', provider: 'Matomo', domain: 'shop.example', purpose: 'Unterscheidet Besucher.', duration: '13 Monate', type: 'cookie' },
      { name: 'visits_seen', provider: 'Matomo', domain: 'shop.example', purpose: 'Counts pages seen.', duration: 'persistent', type: 'local_storage' },
    ]);
    // The draft item is not declared.
    expect(marketing.items.map((i: { name: string }) => i.name)).toEqual([HOSTILE_NAME]);
    expect(data.html).toContain('<th scope="col">Anbieter</th>');
    expect(data.html).toContain('Lokaler Speicher');
    expect(data.html).not.toContain('draft_only');
  });

  it('escapes every word of the account in its markup', async () => {
    const { html } = (await json(tenant.account.id)).body.data;
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&#60;img src=x onerror=&#34;window.pwned=1&#34;&#62;');
    expect(html).toContain('Ad &#34;Network&#34; &#38; Co');
    // Exactly the markup the service writes: three sections, two tables (the required category's, the others').
    expect(html.match(/<table>/g)).toHaveLength(3);
    expect(html.match(/<caption>/g)).toHaveLength(3);
  });

  it('falls back to the account\'s default language for one the banner does not speak, and reads Accept-Language without lang', async () => {
    expect((await json(tenant.account.id, { lang: 'ja' })).body.data.language).toBe('en');
    expect((await json(tenant.account.id, {}, { 'accept-language': 'fr-FR, de;q=0.8, en;q=0.5' })).body.data.language).toBe('de');
    expect((await json(tenant.account.id, {}, { 'accept-language': 'nonsense;;;,,q=x' })).body.data.language).toBe('en');
  });

  it('answers the account\'s own pages, refuses another origin, and knows no other account', async () => {
    const own = await json(tenant.account.id, {}, { origin: `https://${tenant.account.domain}` });
    expect(own.status).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBe(`https://${tenant.account.domain}`);
    expect((await json(tenant.account.id, {}, { origin: 'https://elsewhere.example' })).status).toBe(403);
    expect((await json('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    // As on every widget route, an id that is no account's is not found before anything is validated.
    expect((await json('not-an-id')).status).toBe(404);
    // Another account's declaration holds none of this one's words.
    const other = await json(empty.account.id);
    expect(other.status).toBe(200);
    expect(JSON.stringify(other.body)).not.toContain('Matomo');
  });
});

describe('GET /widget/{id}/declaration', () => {
  it('is a page of its own: escaped, runs nothing, styled only by its own hashed style, cacheable', async () => {
    const res = await page(tenant.account.id);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const style = /<style>([^<]*)<\/style>/.exec(res.body)![1];
    expect(csp).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(res.body).not.toMatch(/<script|<img|onerror="/);
    expect(res.body).toContain('&#60;/td&#62;&#60;/tr&#62;&#60;/table&#62;&#60;script&#62;');
    expect(res.body).toContain(`<title>Cookie declaration: ${tenant.account.name}</title>`);
    expect(res.body).toContain('<html lang="en">');
    // The other language, linked.
    expect(res.body).toContain('<a href="?lang=de" hreflang="de" lang="de">de</a>');
    expect(HOSTILE_PURPOSE).toContain('<script>');
  });

  it('speaks the language asked, by lang or by the browser', async () => {
    for (const res of [await page(tenant.account.id, { lang: 'de' }), await page(tenant.account.id, {}, { 'accept-language': 'de-CH' })]) {
      expect(res.body).toContain('<html lang="de">');
      expect(res.body).toContain('Cookie-Erklärung');
      expect(res.body).toContain('Unterscheidet Besucher.');
      expect(res.body).toContain('<a href="?lang=en" hreflang="en" lang="en">en</a>');
    }
  });

  it('is not found for an unknown account', async () => {
    expect((await page('00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
  });
});

describe('GET /widget/extras.{hash}.js', () => {
  it('serves the file the banner names, for good; the banner itself carries none of the declaration\'s words', async () => {
    const banner = await t.app.inject({ method: 'GET', url: `/widget/${tenant.account.id}.js` });
    const names = [...new Set(banner.body.match(/extras\.[0-9a-f]{16}\.js/g))];
    expect(names).toHaveLength(1);
    const res = await t.app.inject({ method: 'GET', url: `/widget/${names[0]}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(names[0]).toBe(`extras.${createHash('sha256').update(res.body).digest('hex').slice(0, 16)}.js`);
    expect(res.body).toContain('Always allow');
    expect(banner.body).not.toContain('Always allow');
    expect(banner.body).not.toContain('Cookie declaration');
    expect((await t.app.inject({ method: 'GET', url: '/widget/extras.0123456789abcdef.js' })).statusCode).toBe(404);
  });
});
