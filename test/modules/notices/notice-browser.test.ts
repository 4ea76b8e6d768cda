import { beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { bannerShop } from '../../helpers/banner-shop.ts';
import { describeBrowser, newVisitor } from '../../helpers/browser.ts';

/**
 * The notice a visitor was shown, through the real banner script in Chromium: the consent it records
 * names the snapshot the script was served with, and that snapshot stays what it was after an edit.
 * The embedded project only (vitest.config.ts): notices.test.ts covers the API on both engines.
 */
describeBrowser('the notice a visitor was shown', () => {
  const { t, tenants: [tenant], browser, shop } = bannerShop(['Notice'], (_request, response) => {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script src="${t.url}/widget/${tenant.account.id}.js?r=${Math.random()}"></script></head><body><h1>Shop</h1></body></html>`);
  });
  let analytics = '';

  beforeAll(async () => {
    await t.services.db.updateTable('accounts').set({ allowed_domains: JSON.stringify(['localhost']) }).where('id', '=', tenant.account.id).execute();
    const res = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name: 'Analytics', description: 'Counts visits' } } });
    analytics = res.body.data.id;
  });

  const servedHash = async () => (await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`)).body.data.notice_hash as string;

  it('sends the notice_hash of the script it runs, and that snapshot survives an edit', async () => {
    const shown = await servedHash();
    const { context, page, errors } = await newVisitor(browser, {});
    await page.goto(`${shop.url}/`);
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    const sessionId = await page.evaluate(() => window.Consentry!.getConsent()?.session_id);
    let consent: any;
    await expect.poll(async () => {
      consent = (await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { session_id: sessionId! } })).body.data[0];
      return consent?.id;
    }).toBeTruthy();
    expect(consent.notice_hash).toBe(shown);
    expect(consent.user_preferences.accepted_categories).toContain(analytics);

    expect((await call(t.app, 'PUT', `/api/v1/categories/${analytics}`, { token: tenant.tokens.account, body: { category: { description: 'Counts visits and clicks' } } })).status).toBe(200);
    expect(await servedHash()).not.toBe(shown);
    const snapshot = await call(t.app, 'GET', `/api/v1/notices/${shown}`, { token: tenant.tokens.account });
    expect(snapshot.body.data.content.categories.find((c: { id: string }) => c.id === analytics).description).toBe('Counts visits');
    expect((await call(t.app, 'GET', '/api/v1/consents/verify', { token: tenant.tokens.account })).body.valid).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
