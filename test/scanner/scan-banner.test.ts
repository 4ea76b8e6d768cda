/**
 * The scanner's second pass against the real banner script (not a stand-in): a site that loads
 * Consentry's widget and gates one script on analytics. The cookie that script sets must be found
 * only after the scanner clicked the banner's "Accept all".
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, ENGINE, startApp, type TestApp } from '../helpers/app.ts';
import { describeBrowser } from '../helpers/browser.ts';
import { createTenant, type Tenant } from '../helpers/tenants.ts';

describeBrowser(`a scan of a site that runs the banner (${ENGINE})`, () => {
  let t: TestApp;
  let site: Server;
  let siteUrl: string;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startApp({ env: { SCAN_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const service = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    tenant = await createTenant(t.services, 'Banner site');
    const token = tenant.tokens.account;
    for (const [name, required] of [['Necessary', true], ['Analytics', false]] as const) {
      expect((await call(t.app, 'POST', '/api/v1/categories', { token, body: { category: { name, required } } })).status).toBe(201);
    }
    site = createServer((request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.setHeader('set-cookie', 'shop_session=1; Path=/; SameSite=Lax');
      // A hostile page: a key longer than any storage item's name, and more keys than a scan keeps.
      const noisy = request.url === '/noisy'
        ? `<script>localStorage.setItem('q'.repeat(3000), 'y'); for (let i = 0; i < 1500; i++) localStorage.setItem('k' + i, '1');</script>`
        : '';
      response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>${noisy}
<script src="${service}/widget/${tenant.account.id}.js"></script>
<script type="text/plain" data-category="analytics">document.cookie = 'measured=1; path=/; max-age=86400';</script>
</head><body><h1>Shop</h1></body></html>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
    const patched = await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token, body: { account: { domain: 'localhost' } } });
    expect(patched.status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    site?.close();
  });

  async function scanned(url: string) {
    const token = tenant.tokens.account;
    const created = await call(t.app, 'POST', '/api/v1/scans', { token, body: { scan: { starting_url: url, max_pages: 1 } } });
    expect(created.status).toBe(201);
    const deadline = Date.now() + 90_000;
    for (;;) {
      const scan = (await call(t.app, 'GET', `/api/v1/scans/${created.body.data.id}`, { token })).body.data;
      if (!['queued', 'in_progress'].includes(scan.status)) return scan;
      if (Date.now() > deadline) throw new Error(`scan still ${scan.status}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it('clicks "Accept all" in the real banner and finds what consent unlocks', async () => {
    const token = tenant.tokens.account;
    const scan = await scanned(siteUrl);
    expect(scan.status).toBe('completed');
    expect(scan.report.consent_banner).toBe(true);
    const found = Object.fromEntries(scan.report.storage_items.map((item: { name: string; set_before_consent: boolean }) => [item.name, item.set_before_consent]));
    expect(found).toMatchObject({ shop_session: true, measured: false });
    // The scanner is not a visitor: its page loads are no page views, its "Accept all" no consent.
    const consents = await call(t.app, 'GET', '/api/v1/consents', { token });
    expect(consents.body.pagination.count).toBe(0);
    await t.services.visits.flush();
    const stats = await call(t.app, 'GET', '/api/v1/stats', { token });
    expect(stats.body.totals).toMatchObject({ consents: 0, pageviews: 0, unique_visitors: 0 });
  });

  it('shows the scanner the strictest mode: opt-in, where the service would place the scanner in an opt-out region', async () => {
    // The service's own address is nowhere, which these rules make opt-out; the scanner asks no region.
    const rules = { regional_rules: [{ regions: ['EEA'], mode: 'opt-in' }], default_mode: 'opt-out' };
    expect((await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: rules } })).status).toBe(200);
    try {
      const scan = await scanned(siteUrl);
      expect(scan.status).toBe('completed');
      const found = Object.fromEntries(scan.report.storage_items.map((item: { name: string; set_before_consent: boolean }) => [item.name, item.set_before_consent]));
      expect(found).toMatchObject({ measured: false });
    } finally {
      await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { regional_rules: null, default_mode: null } } });
    }
  });

  it('keeps no name longer than a storage item takes, and at most 1,000 items of a page that writes more', async () => {
    const count = async () => Number((await t.services.db.selectFrom('storage_items').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', tenant.account.id).executeTakeFirstOrThrow()).n);
    const before = await count();
    const scan = await scanned(`${siteUrl}noisy`);
    expect(scan.status).toBe('completed');
    expect(scan.storage_items_found).toBe(1000);
    expect(scan.report.storage_items.every((item: { name: string }) => item.name.length <= 255)).toBe(true);
    expect(await count() - before).toBeLessThanOrEqual(1000);
  });
});
