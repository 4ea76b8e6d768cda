import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { bannerShop } from '../../helpers/banner-shop.ts';
import { RETRIED_UNDER_CI, describeBrowser, newVisitor, reportRetries } from '../../helpers/browser.ts';
import { declarationAccount, HOSTILE_NAME, HOSTILE_PURPOSE } from '../../helpers/declaration-account.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The cookie declaration through the real script and server: a shop's cookie policy page with
 * `<div id="consentry-declaration">`, and a page with a script gated on analytics. The embedded
 * project only (vitest.config.ts): the routes under it are tested on both engines (declaration.test.ts).
 */
describeBrowser('the cookie declaration in a browser', RETRIED_UNDER_CI, () => {
  reportRetries();
  const { t, tenants: [tenant], browser, shop } = bannerShop(['Declaration'], (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    response.setHeader('content-type', 'text/html; charset=utf-8');
    const body = url.pathname === '/policy'
      ? '<h1>Cookie policy</h1><div id="consentry-declaration"></div>'
      : '<h1>Shop</h1><script type="text/plain" data-category="analytics">window.analyticsRan = true</script>';
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script src="${t.url}/widget/${tenant.account.id}.js"></script></head><body><main>${body}</main></body></html>`);
  });
  let ids: Awaited<ReturnType<typeof declarationAccount>>;

  beforeAll(async () => {
    await t.services.db.updateTable('accounts').set({ allowed_domains: JSON.stringify(['localhost']) }).where('id', '=', tenant.account.id).execute();
    ids = await declarationAccount(t.app, tenant);
  });

  const declaration = (page: Page) => page.locator('#consentry-declaration');
  const choice = (page: Page) => page.locator('#consentry-declaration section[aria-labelledby="consentry-declaration-choice"]');
  const consents = async () => (await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account })).body.data as
    { id: string; session_id: string; created_at: string; user_preferences: { accept_type: string; accepted_categories: string[] } }[];

  it('lists the items by category in tables; after a choice, the visitor\'s consent id and date', async () => {
    const { context, page, errors } = await newVisitor(browser);
    await page.goto(`${shop.url}/policy`);
    await page.getByRole('table', { name: 'Storage used for: Analytics' }).waitFor();
    // Each category's table, named by its caption, with its items as row headers.
    expect(await page.getByRole('table', { name: 'Storage used for: Necessary' }).getByRole('rowheader').allTextContents()).toEqual(['cart']);
    const analytics = page.getByRole('table', { name: 'Storage used for: Analytics' });
    expect(await analytics.getByRole('columnheader').allTextContents()).toEqual(['Name', 'Provider', 'Purpose', 'Duration', 'Type']);
    expect(await analytics.getByRole('row').nth(2).getByRole('cell').allTextContents()).toEqual(['Matomo', 'Counts pages seen.', 'persistent', 'Local storage']);
    // The hostile item is text, never markup.
    expect(await page.getByRole('table', { name: 'Storage used for: Marketing' }).getByRole('rowheader').allTextContents()).toEqual([HOSTILE_NAME]);
    expect(await declaration(page).textContent()).toContain(HOSTILE_PURPOSE);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    expect(await declaration(page).textContent()).not.toContain('draft_only');
    expect(await choice(page).textContent()).toContain('You have not made a choice on this site yet.');
    expect(await page.getByRole('button', { name: 'Withdraw consent' }).isVisible()).toBe(false);

    await page.locator('#cc-main .cm').getByRole('button', { name: 'Accept all', exact: true }).click();
    const id = await page.evaluate(() => new Promise<string>((resolve) => {
      const seen = () => window.Consentry!.getConsent()?.consent_id;
      const poll = () => (seen() ? resolve(seen()!) : setTimeout(poll, 50));
      poll();
    }));
    await expect.poll(() => choice(page).getByRole('link').textContent()).toBe(id);
    const recorded = (await consents()).find((consent) => consent.id === id)!;
    expect(recorded.user_preferences.accept_type).toBe('all');
    const text = (await choice(page).textContent())!;
    expect(text).toContain('Allowed: Necessary, Analytics, Marketing');
    expect(text).toContain(`Consent ID: ${id}`);
    // The date of the choice, as the browser keeps it: within a minute of the recording.
    const shown = await choice(page).locator('time').getAttribute('datetime');
    expect(Math.abs(Date.parse(shown!) - Date.parse(recorded.created_at))).toBeLessThan(60_000);
    expect(await choice(page).getByRole('link').getAttribute('href')).toContain(`/widget/${tenant.account.id}/consents/${id}?session_id=`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('"Change your choice" opens the preferences; "Withdraw consent" is recorded, and gated scripts stop on the next page', async () => {
    const { context, page, errors } = await newVisitor(browser);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    await page.goto(`${shop.url}/shop`);
    await page.locator('#cc-main .cm').getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => page.evaluate(() => (window as { analyticsRan?: boolean }).analyticsRan)).toBe(true);
    await expect.poll(() => page.evaluate(() => window.Consentry!.getConsent()?.consent_id)).toBeTruthy();
    // A page without the declaration (or an embedded frame) loads neither its file nor its data.
    expect(requested.filter((url) => /\/widget\/(extras\.|[^/]+\/declaration)/.test(url))).toEqual([]);

    await page.goto(`${shop.url}/policy`);
    await page.getByRole('button', { name: 'Change your choice' }).click();
    expect(requested.filter((url) => /\/widget\/extras\.[0-9a-f]{16}\.js$/.test(url))).toHaveLength(1);
    await page.locator('#cc-main .pm').waitFor();
    expect(await page.locator('#cc-main .pm').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#cc-main .pm').isVisible()).toBe(false);

    const session = (await page.evaluate(() => window.Consentry!.getConsent()!.session_id));
    const before = (await consents()).filter((consent) => consent.session_id === session).length;
    await page.getByRole('button', { name: 'Withdraw consent' }).click();
    await expect.poll(async () => (await consents()).filter((consent) => consent.session_id === session).length).toBe(before + 1);
    const withdrawn = (await consents()).filter((consent) => consent.session_id === session)[0];
    expect(withdrawn.user_preferences).toMatchObject({ accept_type: 'necessary', accepted_categories: [ids.necessary.id] });
    await expect.poll(() => choice(page).getByRole('link').textContent()).toBe(withdrawn.id);
    expect(await choice(page).textContent()).toContain('Not allowed: Analytics, Marketing');
    expect(await page.getByRole('button', { name: 'Withdraw consent' }).isVisible()).toBe(false);
    // The focus stays in the declaration, on the button left.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Change your choice');

    await page.goto(`${shop.url}/shop`);
    await page.waitForFunction(() => window.Consentry?.getConsent()?.accept_type === 'necessary');
    expect(await page.evaluate(() => (window as { analyticsRan?: boolean }).analyticsRan)).toBeUndefined();
    expect(await page.locator('#cc-main .cm').isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('speaks the visitor\'s language: German words and the account\'s German names', async () => {
    const { context, page } = await newVisitor(browser, { locale: 'de-DE' });
    await page.goto(`${shop.url}/policy`);
    await page.getByRole('table', { name: 'Speicher für: Statistik' }).waitFor();
    expect(await declaration(page).getAttribute('lang')).toBe('de');
    expect(await page.getByRole('heading', { name: 'Ihre Wahl' }).isVisible()).toBe(true);
    expect(await page.getByRole('table', { name: 'Speicher für: Statistik' }).getByRole('columnheader').allTextContents())
      .toEqual(['Name', 'Anbieter', 'Zweck', 'Dauer', 'Art']);
    expect(await declaration(page).textContent()).toContain('Unterscheidet Besucher.');
    expect(await page.getByRole('button', { name: 'Wahl ändern' }).isVisible()).toBe(true);
    await context.close();
  });

  it('passes axe on the filled declaration and on the page of its own', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const audit = async (selector: string) => {
      await page.addScriptTag({ content: AXE });
      return page.evaluate((include) => (window as unknown as { axe: { run: (c: unknown) => Promise<{ violations: { id: string; nodes: unknown[] }[] }> } })
        .axe.run({ include: [include] }).then((r) => r.violations.map((v) => `${v.id} (${v.nodes.length})`)), selector);
    };
    await page.goto(`${shop.url}/policy`);
    await page.getByRole('heading', { name: 'Your choice' }).waitFor();
    expect(await audit('#consentry-declaration')).toEqual([]);
    await page.goto(`${t.url}/widget/${tenant.account.id}/declaration`);
    expect(await audit('html')).toEqual([]);
    await context.close();
  });

  it('the page of its own shows the hostile names as text and runs nothing', async () => {
    const { context, page, errors } = await newVisitor(browser);
    const blocked: string[] = [];
    page.on('console', (message) => { if (/Content Security Policy/i.test(message.text())) blocked.push(message.text()); });
    await page.goto(`${t.url}/widget/${tenant.account.id}/declaration?lang=de`);
    expect(await page.title()).toBe(`Cookie-Erklärung: ${tenant.account.name}`);
    expect(await page.getByRole('table', { name: 'Speicher für: Werbung' }).getByRole('rowheader').allTextContents()).toEqual([HOSTILE_NAME]);
    expect(await page.locator('body').textContent()).toContain(HOSTILE_PURPOSE);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    // Its own style applies (allowed by hash): the table has collapsed borders.
    expect(await page.locator('table').first().evaluate((table) => getComputedStyle(table).borderCollapse)).toBe('collapse');
    expect(blocked).toEqual([]);
    await page.getByRole('link', { name: 'en' }).click();
    await page.getByRole('heading', { name: `Cookie declaration: ${tenant.account.name}` }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
