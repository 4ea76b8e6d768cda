import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { shippedDatabaseFiles } from '../../../src/geo/geoip.ts';
import { call, startApp, type TestApp } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

/**
 * GET /widget/{account_id}/region: where the visitor is and the mode there, through the shipped
 * database (DB-IP Lite places 8.8.8.8 in California, 81.2.69.142 in the UK, 1.1.1.1 in Australia:
 * see test/geo/locate.unit.test.ts) and through the CDN's headers when, and only when, configured.
 */
const LIMITS = { WIDGET_RATE_LIMIT_PER_MIN: '10000', RATE_LIMIT_MAX: '10000' };

interface Visit {
  address?: string;
  headers?: Record<string, string>;
  accountId?: string;
}

async function region(t: TestApp, tenant: Tenant, { address = '127.0.0.1', headers = {}, accountId = tenant.account.id }: Visit = {}) {
  const res = await t.app.inject({ method: 'GET', url: `/widget/${accountId}/region`, remoteAddress: address, headers });
  return { status: res.statusCode, headers: res.headers, body: res.body === '' ? undefined : JSON.parse(res.body) };
}

describe('without trusted headers, through the shipped database', () => {
  const lines: string[] = [];
  const { t, tenants: [tenant] } = fileApp({ env: { ...LIMITS, LOG_LEVEL: 'debug' }, logLines: lines, tenants: ['Located'] });

  it('answers the country, the region and the mode of the shipped rules, uncacheable', async () => {
    const res = await region(t, tenant, { address: '8.8.8.8' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ country: 'US', region: 'US-CA', mode: 'opt-out' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.vary).toBe('Origin');
    expect((await region(t, tenant, { address: '81.2.69.142' })).body).toEqual({ country: 'GB', region: null, mode: 'opt-in' });
    expect((await region(t, tenant, { address: '1.1.1.1' })).body).toEqual({ country: 'AU', region: null, mode: 'opt-in' });
    expect((await region(t, tenant, { address: '::ffff:8.8.8.8' })).body).toEqual({ country: 'US', region: 'US-CA', mode: 'opt-out' });
    expect((await region(t, tenant, { address: '2a00:1450:4001::1' })).body).toEqual({ country: 'DE', region: null, mode: 'opt-in' });
    // Loopback is nowhere: the default mode.
    expect((await region(t, tenant)).body).toEqual({ country: null, region: null, mode: 'opt-in' });
  });

  it('believes no header it was not told to, and no X-Forwarded-For without TRUST_PROXY', async () => {
    const told = { 'cf-ipcountry': 'DE', 'x-vercel-ip-country': 'DE', 'cloudfront-viewer-country': 'DE', 'x-vercel-ip-country-region': 'BY' };
    expect((await region(t, tenant, { address: '8.8.8.8', headers: told })).body).toEqual({ country: 'US', region: 'US-CA', mode: 'opt-out' });
    expect((await region(t, tenant, { headers: { 'x-forwarded-for': '8.8.8.8' } })).body).toEqual({ country: null, region: null, mode: 'opt-in' });
  });

  it('follows a rule changed by PATCH at once, and the shipped defaults again after null', async () => {
    const patch = (banner: object) => call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner } });
    expect((await patch({ regional_rules: [{ regions: ['US-CA'], mode: 'none' }, { regions: ['US'], mode: 'notice' }], default_mode: 'opt-out' })).status).toBe(200);
    expect((await region(t, tenant, { address: '8.8.8.8' })).body).toEqual({ country: 'US', region: 'US-CA', mode: 'none' });
    expect((await region(t, tenant, { address: '81.2.69.142' })).body.mode).toBe('opt-out');
    expect((await patch({ regional_rules: [{ regions: ['US'], mode: 'notice' }, { regions: ['US-CA'], mode: 'none' }] })).status).toBe(200);
    expect((await region(t, tenant, { address: '8.8.8.8' })).body.mode).toBe('notice');
    expect((await patch({ regional_rules: null, default_mode: null })).status).toBe(200);
    expect((await region(t, tenant, { address: '8.8.8.8' })).body.mode).toBe('opt-out');
    expect((await region(t, tenant, { address: '81.2.69.142' })).body.mode).toBe('opt-in');
  });

  it('answers as the other widget routes do: CORS for the account\'s domains, 403 for others, 404 for no account', async () => {
    const own = await region(t, tenant, { address: '8.8.8.8', headers: { origin: `https://${tenant.account.domain}` } });
    expect(own.status).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBe(`https://${tenant.account.domain}`);
    // Asked with credentials, so that the browser sends it on the script's connection.
    expect(own.headers['access-control-allow-credentials']).toBe('true');
    const foreign = await region(t, tenant, { address: '8.8.8.8', headers: { origin: 'https://elsewhere.example.org' } });
    expect(foreign).toMatchObject({ status: 403, body: { errors: [{ code: 403, message: 'Origin is not allowed for this account' }] } });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    expect(foreign.headers['access-control-allow-credentials']).toBeUndefined();
    for (const accountId of [newId(), 'not-an-id']) {
      expect(await region(t, tenant, { address: '8.8.8.8', accountId })).toMatchObject({ status: 404, body: { errors: [{ code: 404, message: 'Record not found' }] } });
    }
    expect((await call(t.app, 'POST', `/widget/${tenant.account.id}/region`)).status).toBe(404);
  });

  it('counts against the widget\'s rate limit', async () => {
    const limited = await startApp({ env: { WIDGET_RATE_LIMIT_PER_MIN: '3' } });
    try {
      const account = await createTenant(limited.services, 'Limited');
      const statuses = [];
      for (let n = 0; n < 4; n++) statuses.push((await region(limited, account, { address: '8.8.8.8' })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  it('never writes the visitor\'s address to the log', async () => {
    await region(t, tenant, { address: '203.0.113.77' });
    await region(t, tenant, { address: '8.8.8.8', headers: { origin: 'https://elsewhere.example.org' } });
    const logged = lines.join('\n');
    expect(logged).toContain('/region');
    expect(logged).not.toContain('203.0.113.77');
    expect(logged).not.toContain('8.8.8.8');
  });

  it('fills the place and mode of a banner\'s consent that sent no mode, from the place it sent or else the visitor\'s', async () => {
    const record = async (session: string, address: string, sent: object = {}) => {
      const res = await t.app.inject({
        method: 'POST', url: `/widget/${tenant.account.id}/consents`, remoteAddress: address,
        payload: { consent: { session_id: session, user_preferences: { accept_type: 'all' }, ...sent } },
      });
      expect(res.statusCode, res.body).toBe(201);
      const listed = await call(t.app, 'GET', `/api/v1/consents?session_id=${session}`, { token: tenant.tokens.account });
      const [row] = listed.body.data;
      return { country: row.country, region: row.region, mode: row.mode };
    };
    expect(await record('place-located', '8.8.8.8')).toEqual({ country: 'US', region: 'US-CA', mode: 'opt-out' });
    expect(await record('place-unknown', '127.0.0.1')).toEqual({ country: null, region: null, mode: 'opt-in' });
    // The page said where its visitor is (data-region): that place, and its mode, whatever the address.
    expect(await record('place-told', '8.8.8.8', { country: 'DE' })).toEqual({ country: 'DE', region: null, mode: 'opt-in' });
    expect(await record('place-told-state', '81.2.69.142', { country: 'US', region: 'US-VA' })).toEqual({ country: 'US', region: 'US-VA', mode: 'opt-out' });
    // A mode sent stands; the place is still filled in.
    expect(await record('mode-sent', '8.8.8.8', { mode: 'notice' })).toEqual({ country: 'US', region: 'US-CA', mode: 'notice' });
    expect(await record('all-sent', '8.8.8.8', { country: 'FR', region: null, mode: 'opt-in' })).toEqual({ country: 'FR', region: null, mode: 'opt-in' });
    // The account's current rules decide.
    const patch = (banner: object) => call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner } });
    await patch({ regional_rules: [{ regions: ['US'], mode: 'notice' }] });
    expect(await record('place-after-patch', '8.8.8.8')).toEqual({ country: 'US', region: 'US-CA', mode: 'notice' });
    await patch({ regional_rules: null });
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await call(t.app, 'GET', '/api/v1/openapi.json')).body;
    const operation = doc.paths['/widget/{account_id}/region'].get;
    expect(operation.operationId).toBe('widgetRegion');
    expect(Object.keys(operation.responses['200'].content['application/json'].schema.properties)).toEqual(['country', 'region', 'mode']);
  });
});

describe('through the trusted headers, when configured', () => {
  const { t, tenants: [tenant] } = fileApp({ env: { ...LIMITS, GEO_COUNTRY_HEADER: 'CF-IPCountry', GEO_REGION_HEADER: 'cf-region-code', TRUST_PROXY: '1' }, tenants: ['Behind a CDN'] });

  it('believes them first, the database completing a missing region of the same country', async () => {
    const visit = (headers: Record<string, string>) => region(t, tenant, { headers });
    expect((await visit({ 'cf-ipcountry': 'DE' })).body).toEqual({ country: 'DE', region: null, mode: 'opt-in' });
    expect((await visit({ 'cf-ipcountry': 'us', 'cf-region-code': 'TX' })).body).toEqual({ country: 'US', region: 'US-TX', mode: 'opt-out' });
    expect((await visit({ 'cf-ipcountry': 'US', 'cf-region-code': 'US-AL' })).body).toEqual({ country: 'US', region: 'US-AL', mode: 'opt-in' });
    expect((await visit({ 'cf-ipcountry': 'US', 'x-forwarded-for': '8.8.8.8' })).body).toEqual({ country: 'US', region: 'US-CA', mode: 'opt-out' });
    // A country the header and the database disagree on keeps the header's, without a region.
    expect((await visit({ 'cf-ipcountry': 'FR', 'x-forwarded-for': '8.8.8.8' })).body).toEqual({ country: 'FR', region: null, mode: 'opt-in' });
    // No header, or one that is no country (Cloudflare's XX, Tor's T1): the database, by the address the proxy gives.
    expect((await visit({ 'x-forwarded-for': '8.8.8.8' })).body).toEqual({ country: 'US', region: 'US-CA', mode: 'opt-out' });
    expect((await visit({ 'cf-ipcountry': 'XX', 'x-forwarded-for': '81.2.69.142' })).body).toEqual({ country: 'GB', region: null, mode: 'opt-in' });
    expect((await visit({ 'cf-ipcountry': 'T1' })).body).toEqual({ country: null, region: null, mode: 'opt-in' });
  });

  it('also place a banner\'s consent that sent no mode', async () => {
    const res = await t.app.inject({
      method: 'POST', url: `/widget/${tenant.account.id}/consents`, headers: { 'cf-ipcountry': 'US', 'cf-region-code': 'CO' },
      payload: { consent: { session_id: 'behind-cdn', user_preferences: { accept_type: 'all' } } },
    });
    expect(res.statusCode, res.body).toBe(201);
    const [row] = (await call(t.app, 'GET', '/api/v1/consents?session_id=behind-cdn', { token: tenant.tokens.account })).body.data;
    expect([row.country, row.region, row.mode]).toEqual(['US', 'US-CO', 'opt-out']);
  });

  it('says the answer varies with them', async () => {
    expect((await region(t, tenant, { headers: { 'cf-ipcountry': 'DE' } })).headers.vary).toBe('Origin, cf-ipcountry, cf-region-code');
  });
});

describe('with the GeoIP database', () => {
  it('disabled, locates by the trusted headers alone, else not at all', async () => {
    const t = await startApp({ env: { ...LIMITS, GEOIP_DISABLED: 'true', GEO_COUNTRY_HEADER: 'x-vercel-ip-country' } });
    try {
      const tenant = await createTenant(t.services, 'No database');
      expect((await region(t, tenant, { address: '8.8.8.8' })).body).toEqual({ country: null, region: null, mode: 'opt-in' });
      expect((await region(t, tenant, { address: '8.8.8.8', headers: { 'x-vercel-ip-country': 'CH' } })).body).toEqual({ country: 'CH', region: null, mode: 'opt-in' });
    } finally {
      await t.close();
    }
  });

  it('named by GEOIP_FILE, uses that file; an unreadable one stops the start, naming it', async () => {
    const [ipv4] = shippedDatabaseFiles();
    const t = await startApp({ env: { ...LIMITS, GEOIP_FILE: ipv4 } });
    try {
      const tenant = await createTenant(t.services, 'Own file');
      expect((await region(t, tenant, { address: '8.8.8.8' })).body).toEqual({ country: 'US', region: 'US-CA', mode: 'opt-out' });
    } finally {
      await t.close();
    }
    await expect(startApp({ env: { GEOIP_FILE: '/nonexistent/geo.mmdb' } })).rejects.toThrow(
      'GEOIP_FILE: GeoIP database /nonexistent/geo.mmdb cannot be read: no such file',
    );
    await expect(startApp({ env: { GEOIP_FILE: `${ipv4},${import.meta.filename}` } })).rejects.toThrow(/^GEOIP_FILE: GeoIP database .*widget-region\.test\.ts is not a MaxMind DB/);
  });
});
