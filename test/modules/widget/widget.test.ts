import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { insertCategory } from '../../helpers/records.ts';
import { createTenant } from '../../helpers/tenants.ts';

const { t, tenants: [tenant] } = fileApp({ env: { WIDGET_RATE_LIMIT_PER_MIN: '1000' }, tenants: ['Widget'] });
let necessary: { id: string };
const origin = 'https://www.widget.example.com';

beforeAll(async () => {
  await t.services.db.updateTable('accounts').set({ allowed_domains: JSON.stringify(['*.partner-shop.test', 'localhost']) }).where('id', '=', tenant.account.id).execute();
  necessary = await insertCategory(t.services, tenant.account.id, { name: 'Necessary', required: true });
  const analytics = await insertCategory(t.services, tenant.account.id, { name: 'Analytics' });
  const item = (name: string, status: 'draft' | 'finalised') => ({
    id: newId(), account_id: tenant.account.id, category_id: analytics.id, name, status, domain: '.widget.example.com', duration: '2 years',
  });
  await t.services.db.insertInto('storage_items').values([item('_ga', 'finalised'), item('_draft', 'draft')]).execute();
});

const consentBody = (sessionId: string) => ({
  consent: { session_id: sessionId, user_preferences: { accept_type: 'necessary', accepted_categories: [necessary.id], rejected_categories: [] } },
});

describe('GET /widget/{account_id}/config.json', () => {
  it('serves the categories with only finalised storage items, and CORS for the account\'s domains', async () => {
    const res = await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`, { headers: { origin } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    const { account, categories } = res.body.data;
    expect(account).toEqual({ id: tenant.account.id, name: tenant.account.name, default_language: 'en' });
    expect(categories.map((c: { name: string }) => c.name)).toEqual(['Necessary', 'Analytics']);
    expect(categories[0]).toMatchObject({ slug: 'necessary', required: true, storage_items: [] });
    expect(categories[1].storage_items).toEqual([{
      id: expect.any(String), name: '_ga', domain: '.widget.example.com', duration: '2 years',
      description: '', company_name: '', storage_type: 'cookie', is_wildcard_cookie: false, translations: {},
    }]);
  });

  it('names each category\'s services, and a service added, moved or deleted through the API at once', async () => {
    const config = async () => (await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`)).body.data.categories as Array<{ name: string; services: unknown[] }>;
    expect((await config()).map((c) => c.services)).toEqual([[], []]);
    const analytics = (await config())[1] as unknown as { id: string };
    const create = (service: object) => call(t.app, 'POST', '/api/v1/services', { token: tenant.tokens.account, body: { service } });
    const matomo = (await create({ name: 'Matomo', company_name: 'InnoCraft', category_id: analytics.id, privacy_policy_url: 'https://matomo.org/privacy-policy/' })).body.data;
    await create({ name: 'Unfiled' });
    expect((await config())[1].services).toEqual([{
      id: matomo.id, slug: 'matomo', name: 'Matomo', description: '', company_name: 'InnoCraft', privacy_policy_url: 'https://matomo.org/privacy-policy/',
      translations: {},
    }]);
    await call(t.app, 'PUT', `/api/v1/services/${matomo.id}`, { token: tenant.tokens.account, body: { service: { category_id: necessary.id } } });
    expect((await config()).map((c) => c.services.length)).toEqual([1, 0]);
    await call(t.app, 'DELETE', `/api/v1/services/${matomo.id}`, { token: tenant.tokens.account });
    expect((await config()).map((c) => c.services.length)).toEqual([0, 0]);
  });

  it('refuses a foreign origin with 403 and no CORS header; 404 for an unknown account', async () => {
    const res = await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`, { headers: { origin: 'https://evil.example' } });
    expect(res).toMatchObject({ status: 403, body: { errors: [{ code: 403, message: 'Origin is not allowed for this account' }] } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect((await call(t.app, 'GET', `/widget/${newId()}/config.json`)).status).toBe(404);
    expect((await call(t.app, 'GET', '/widget/nope/config.json')).status).toBe(404);
  });
});

describe('GET /widget/{account_id}.js', () => {
  it('is kept by browsers for as long as docs/integrating.md says a change takes to reach them', async () => {
    const script = await call(t.app, 'GET', `/widget/${tenant.account.id}.js`);
    expect(script.status).toBe(200);
    const cacheControl = String(script.headers['cache-control']);
    const maxAge = Number(/^public, max-age=(\d+)$/.exec(cacheControl)![1]);
    const page = readFileSync(new URL('../../../docs/integrating.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(page).toContain(`\`Cache-Control: ${cacheControl}\` (a change reaches browsers within ${maxAge / 60} minutes of the server`);
  });
});

describe('POST /widget/{account_id}/consents', () => {
  it('records a consent from an allowed origin and answers id and created_at', async () => {
    for (const allowed of [origin, 'https://widget.example.com', 'https://eu.partner-shop.test', 'http://localhost:5173']) {
      const res = await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body: consentBody('visitor-1'), headers: { origin: allowed } });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.data).sort()).toEqual(['created_at', 'id']);
      expect(res.headers['access-control-allow-origin']).toBe(allowed);
    }
    const stored = await t.services.db.selectFrom('consents').selectAll().where('account_id', '=', tenant.account.id).where('session_id', '=', 'visitor-1').execute();
    expect(stored).toHaveLength(4);
  });

  it('answers the CORS preflight for allowed origins only', async () => {
    const preflight = (from: string) => t.app.inject({
      method: 'OPTIONS', url: `/widget/${tenant.account.id}/consents`,
      headers: { origin: from, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    const ok = await preflight(origin);
    expect(ok.statusCode).toBe(204);
    // Answered before any body is read: a Content-Type without a body changes nothing.
    const typed = await t.app.inject({
      method: 'OPTIONS', url: `/widget/${tenant.account.id}/consents`,
      headers: { origin, 'access-control-request-method': 'POST', 'content-type': 'application/json' },
    });
    expect(typed.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(origin);
    expect(String(ok.headers['access-control-allow-methods'])).toContain('POST');
    expect(ok.headers['access-control-allow-headers']).toBe('Content-Type, Idempotency-Key');
    expect(ok.headers['access-control-max-age']).toBe('600');
    expect(ok.headers.vary).toBe('Origin');
    // Another origin is refused as its request would be; an unknown account is not found.
    const refused = await preflight('https://evil.example');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ errors: [{ code: 403, message: 'Origin is not allowed for this account' }] });
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    const unknown = await t.app.inject({
      method: 'OPTIONS', url: '/widget/01900000-0000-7000-8000-000000000000/consents',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { errors: [{ code: 404, message: 'Record not found' }] }]);
    // An OPTIONS that asks for no method is no preflight; nor is one to the API.
    const bare = await t.app.inject({ method: 'OPTIONS', url: `/widget/${tenant.account.id}/consents`, headers: { origin } });
    expect(bare.statusCode).toBe(404);
    const api = await t.app.inject({ method: 'OPTIONS', url: '/api/v1/consents', headers: { origin, 'access-control-request-method': 'POST' } });
    expect(api.statusCode).toBe(404);
    expect(api.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses foreign origins, bodies over 16 KiB, and bad preferences', async () => {
    const url = `/widget/${tenant.account.id}/consents`;
    expect((await call(t.app, 'POST', url, { body: consentBody('x'), headers: { origin: 'https://widget.example.com.evil.test' } })).status).toBe(403);
    const big = { consent: { ...consentBody('x').consent, url: `https://widget.example.com/${'a'.repeat(17_000)}` } };
    expect((await call(t.app, 'POST', url, { body: big })).status).toBe(413);
    const bad = await call(t.app, 'POST', url, { body: { consent: { session_id: 'x', user_preferences: { accept_type: 'custom', rejected_categories: [necessary.id] } } } });
    expect(bad).toMatchObject({ status: 422, body: { errors: [{ error: 'Rejected categories cannot include a required category' }] } });
  });

  it('refuses an unknown account or a foreign origin before looking at the body or the query', async () => {
    const evil = { origin: 'https://evil.example' };
    const notFound = { errors: [{ code: 404, message: 'Record not found' }] };
    const forbidden = { errors: [{ code: 403, message: 'Origin is not allowed for this account' }] };
    const unknown = newId();
    for (const body of [{}, { consent: { session_id: 7 } }]) {
      expect(await call(t.app, 'POST', `/widget/${unknown}/consents`, { body })).toMatchObject({ status: 404, body: notFound });
      expect(await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body, headers: evil })).toMatchObject({ status: 403, body: forbidden });
    }
    const malformed = await t.app.inject({ method: 'POST', url: `/widget/${tenant.account.id}/consents`, headers: { ...evil, 'content-type': 'application/json' }, payload: '{"consent":' });
    expect([malformed.statusCode, malformed.json()]).toEqual([403, forbidden]);
    const receipt = (account: string, headers = {}) => call(t.app, 'GET', `/widget/${account}/consents/${newId()}?session_id=${'x'.repeat(300)}`, { headers });
    expect(await receipt(unknown)).toMatchObject({ status: 404, body: notFound });
    expect(await receipt(tenant.account.id, evil)).toMatchObject({ status: 403, body: forbidden });
    expect(await call(t.app, 'GET', `/widget/${unknown}/config.json?session_id=${'x'.repeat(300)}`)).toMatchObject({ status: 404, body: notFound });
  });

  it('accepts JSON sent as text/plain, as navigator.sendBeacon does', async () => {
    const res = await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, {
      body: JSON.stringify(consentBody('beacon')), headers: { 'content-type': 'text/plain;charset=UTF-8', origin },
    });
    expect(res.status).toBe(201);
  });

  // One app with a budget of 3 a minute serves both: each test sends from an address of its own.
  describe('with WIDGET_RATE_LIMIT_PER_MIN=3', () => {
    const { t: limited } = fileApp({ env: { WIDGET_RATE_LIMIT_PER_MIN: '3' } });

    it('throttles per client IP', async () => {
      const other = await createTenant(limited.services, 'Throttled');
      const own = `https://${other.account.domain}`;
      const hit = (origin = own) => limited.app.inject({ method: 'GET', url: `/widget/${other.account.id}/config.json`, remoteAddress: '198.51.100.4', headers: { origin } });
      for (let i = 0; i < 3; i++) expect((await hit()).statusCode).toBe(200);
      const res = await hit();
      expect(res.statusCode).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // The banner's page can read the refusal: it carries CORS for the account's domains only.
      expect([res.headers['access-control-allow-origin'], res.headers.vary]).toEqual([own, 'Origin']);
      const foreign = await hit('https://evil.example');
      expect([foreign.statusCode, foreign.headers['access-control-allow-origin']]).toEqual([429, undefined]);
    });

    it('counts page-view beacons against a budget of their own: page views never crowd out a consent', async () => {
      const other = await createTenant(limited.services, 'Beacons');
      const from = { remoteAddress: '198.51.100.5' };
      const view = () => limited.app.inject({ method: 'POST', url: `/widget/${other.account.id}/views`, ...from });
      for (let i = 0; i < 3; i++) expect((await view()).statusCode).toBe(204);
      expect((await view()).statusCode).toBe(429);
      const consent = await limited.app.inject({
        method: 'POST', url: `/widget/${other.account.id}/consents`, ...from,
        payload: { consent: { session_id: 'after-beacons', user_preferences: { accept_type: 'all' } } },
      });
      expect(consent.statusCode).toBe(201);
    });
  });
});

describe('visits', () => {
  it('counts pageviews and distinct visitors per day in memory, and writes them in a batch', async () => {
    const fresh = await createTenant(t.services, 'Counted');
    for (const session of ['a', 'b', 'a', undefined]) {
      await call(t.app, 'GET', `/widget/${fresh.account.id}/config.json`, { query: session ? { session_id: session } : {} });
    }
    const unwritten = await t.services.db.selectFrom('account_daily_stats').selectAll().where('account_id', '=', fresh.account.id).execute();
    expect(unwritten).toEqual([]);
    await t.services.visits.flush();
    const stats = await t.services.db.selectFrom('account_daily_stats').selectAll().where('account_id', '=', fresh.account.id).execute();
    expect(stats).toHaveLength(1);
    expect(stats[0]).toMatchObject({ pageviews: 4, visitors: 2 });
    const account = await call(t.app, 'GET', `/api/v1/accounts/${fresh.account.id}`, { token: fresh.tokens.admin });
    expect(account.body.onboarding_status).toBe('code_installed');
  });

  it('is installed when one of the account\'s own pages loads the script, not a page of another site', async () => {
    const fresh = await createTenant(t.services, 'Installed');
    const status = async () => (await call(t.app, 'GET', `/api/v1/accounts/${fresh.account.id}`, { token: fresh.tokens.admin })).body.onboarding_status;
    const script = (referer?: string) => call(t.app, 'GET', `/widget/${fresh.account.id}.js`, { headers: referer ? { referer } : {} });
    expect((await script('https://elsewhere.example/shop')).status).toBe(200);
    // The mark is written as the script is sent, before this read (one connection: the embedded engine).
    expect(await status()).toBe('account_created');
    expect((await script(`https://${fresh.account.domain}/shop`)).status).toBe(200);
    await expect.poll(status).toBe('code_installed');
  });

  it('counts the banner\'s page views (POST /views), a visitor where it names the session asked, only from the account\'s pages', async () => {
    const fresh = await createTenant(t.services, 'Viewed');
    const view = (headers: Record<string, string> = {}, body?: string) =>
      call(t.app, 'POST', `/widget/${fresh.account.id}/views`, { headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'text/plain;charset=UTF-8' }) }, body });
    const own = { origin: `https://${fresh.account.domain}` };
    const first = await view(own);
    expect(first.status).toBe(204);
    expect(first.headers['access-control-allow-origin']).toBe(own.origin);
    // As navigator.sendBeacon sends a string: text/plain. Two pages of one session, one of another.
    expect((await view(own, JSON.stringify({ session_id: 'asked-1' }))).status).toBe(204);
    expect((await view(own, JSON.stringify({ session_id: 'asked-1' }))).status).toBe(204);
    expect((await view(own, JSON.stringify({ session_id: 'asked-2' }))).status).toBe(204);
    expect((await view(own, JSON.stringify({ session_id: 'x'.repeat(129) }))).status).toBe(422);
    expect((await view(own, '{"session_id":')).status).toBe(400);
    expect(await view({ origin: 'https://elsewhere.example' })).toMatchObject({ status: 403 });
    expect((await call(t.app, 'POST', `/widget/${newId()}/views`)).status).toBe(404);
    await t.services.visits.flush();
    const stats = await t.services.db.selectFrom('account_daily_stats').selectAll().where('account_id', '=', fresh.account.id).execute();
    expect(stats).toHaveLength(1);
    expect(stats[0]).toMatchObject({ pageviews: 4, visitors: 2 });
    // None of them chose: the consent rate says so, not 100%.
    const rate = await call(t.app, 'GET', '/api/v1/stats', { token: fresh.tokens.account });
    expect(rate.body.totals).toMatchObject({ pageviews: 4, unique_visitors: 2, consenting_visitors: 0, consent_rate: 0 });
  });
});
