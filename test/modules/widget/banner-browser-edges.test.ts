import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { bannerShop } from '../../helpers/banner-shop.ts';
import { RETRIED_UNDER_CI, describeBrowser, reportRetries } from '../../helpers/browser.ts';
import { pageviewsOf, settledPageviewsOf } from '../../helpers/records.ts';

/**
 * The banner at its edges in a real browser: a shop that this test serves on its own port under
 * several names — `shop.localhost` (the account's domain), its `www.` twin and `localhost` (Chromium
 * sends every `*.localhost` to this machine) — loads the script from the real service
 * (http://127.0.0.1:PORT). See banner-browser.test.ts for the banner's ordinary work. The embedded
 * project only (vitest.config.ts): the API under the banner is tested on both engines.
 */
describeBrowser('the banner at its edges', RETRIED_UNDER_CI, () => {
  reportRetries();
  const { t, tenants: [tenant], browser, shop } = bannerShop(['Edges'], (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    response.setHeader('content-type', 'text/html; charset=utf-8');
    const has = (name: string) => url.searchParams.has(name);
    response.end(page({ lang: url.searchParams.get('lang') ?? 'en', twice: has('twice'), probe: has('probe') }));
  });
  let served = 0;

  interface PageOptions { lang: string; twice: boolean; probe: boolean }
  /** `probe`: what window.Consentry answers right after the script, before the document is parsed. */
  const page = ({ lang, twice, probe }: PageOptions) => {
    const tag = `<script src="${t.url}/widget/${tenant.account.id}.js?r=${++served}"></script>`;
    const early = '<script>window.early = { readyState: document.readyState, consent: Consentry.getConsent(), ' +
      'analytics: Consentry.acceptedCategory("analytics"), necessary: Consentry.acceptedCategory("necessary") };</script>';
    return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>Edge shop</title>
${tag}${twice ? `\n${tag}` : ''}${probe ? `\n${early}` : ''}
</head><body><main><h1>Edge shop</h1></main></body></html>`;
  };

  beforeAll(async () => {
    await t.services.db.updateTable('accounts')
      .set({ domain: 'shop.localhost', allowed_domains: JSON.stringify(['localhost']), https_only: false })
      .where('id', '=', tenant.account.id).execute();
    const ids: Record<string, string> = {};
    for (const [name, required] of [['Necessary', true], ['Analytics', false]] as const) {
      const res = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name, required } } });
      expect(res.status).toBe(201);
      ids[name] = res.body.data.id;
    }
    for (const name of ['_ga', '_fbp']) {
      const res = await call(t.app, 'POST', '/api/v1/storage-items', {
        token: tenant.tokens.account,
        body: { storage_item: { name, storage_type: 'cookie', category_id: ids.Analytics, status: 'finalised', duration: '1 year', description: 'Counts visits' } },
      });
      expect(res.status).toBe(201);
    }
  });

  /** A page of the shop, in a new visitor's browser unless `context` is an existing one. */
  async function visit(options: { host?: string; path?: string; lang?: string; twice?: boolean; probe?: boolean; context?: BrowserContext } = {}) {
    const context = options.context ?? (await browser.newContext());
    const page = await context.newPage();
    const errors: Error[] = [];
    page.on('pageerror', (error) => errors.push(error));
    const warnings: string[] = [];
    page.on('console', (message) => { if (message.type() === 'warning') warnings.push(message.text()); });
    const query = new URLSearchParams({ lang: options.lang ?? 'en', ...(options.twice ? { twice: '1' } : {}), ...(options.probe ? { probe: '1' } : {}) });
    await page.goto(`http://${options.host ?? 'shop.localhost'}:${shop.port}${options.path ?? '/'}?${query}`);
    return { context, page, errors, warnings };
  }


  const acceptLabel = async (page: Page) => {
    const button = page.locator('#cc-main .cm button[data-role="all"]');
    await button.waitFor();
    return button.textContent();
  };

  it('falls back from a tag with script and region to each shorter prefix, in any letter case', async () => {
    const translations = { 'zh-Hant': { accept_all: '全部接受' } };
    // The page's language first: the test's browser asks for English.
    const set = await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { translations, language_sources: ['page', 'browser', 'default'] } } });
    expect(set.status).toBe(200);
    try {
      for (const lang of ['zh-Hant-TW', 'zh-hant-tw', 'ZH-HANT']) {
        const { context, page } = await visit({ lang });
        expect(await acceptLabel(page), lang).toBe('全部接受');
        await context.close();
      }
      const swiss = await visit({ lang: 'de-CH-1996' });
      expect(await acceptLabel(swiss.page)).toBe('Alle akzeptieren');
      await swiss.context.close();
    } finally {
      await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { translations: { 'zh-Hant': null }, language_sources: ['browser', 'page', 'default'] } } });
    }
  });

  it('clears a rejected category\'s cookies on each of the page\'s paths, with and without a trailing slash', async () => {
    const context = await browser.newContext();
    for (const [path, expected] of [
      ['/shop/cart/', ['_fbp /shop/cart/', '_ga /shop/cart', 'keep_me /shop/cart']],
      ['/shop/cart', ['_fbp /shop/cart', '_ga /shop', 'keep_me /shop']],
    ]) {
      await context.clearCookies();
      const { page } = await visit({ path: path as string, context });
      await acceptLabel(page);
      await page.evaluate((own) => {
        document.cookie = '_ga=1';
        document.cookie = `_fbp=1; path=${own}`;
        document.cookie = 'keep_me=1';
      }, path as string);
      const cookies = async () => (await context.cookies()).map((c) => `${c.name} ${c.path}`).sort();
      expect(await cookies()).toEqual(expected);
      await page.getByRole('button', { name: 'Reject all', exact: true }).click();
      await expect.poll(cookies).toEqual([`${own()} /`, (expected as string[])[2]]);
      await page.close();
    }
    await context.close();
  });

  it('shows names and texts with &, quotes and < as text, in labels as in markup, and runs none of it', async () => {
    const hostile = `Ads & Partners' "offers" <img src="/x.png" onerror="window.injected = true">`;
    const created = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name: hostile } } });
    expect(created.status).toBe(201);
    const en = { close: 'Close & "go" back', cookie_name: `Name's <img src="/y.png" onerror="window.injected = true">` };
    const set = await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { translations: { en } } } });
    expect(set.status).toBe(200);
    try {
      const { context, page, errors } = await visit();
      await page.getByRole('button', { name: 'Manage preferences', exact: true }).click();
      await page.locator('#cc-main .pm').waitFor();
      await page.waitForTimeout(300);
      expect(await page.evaluate(() => (window as any).injected)).toBeUndefined();
      const toggle = page.getByRole('checkbox', { name: hostile, exact: true });
      expect(await toggle.count()).toBe(1);
      expect(await page.locator('#cc-main .pm__section-title', { hasText: 'Ads & Partners' }).textContent()).toBe(hostile);
      expect(await page.locator('#cc-main .pm__close-btn').getAttribute('aria-label')).toBe(en.close);
      expect(await page.getByRole('button', { name: en.close, exact: true }).count()).toBe(1);
      expect(await page.locator('#cc-main .pm__table-th').first().textContent()).toBe(en.cookie_name);
      expect(await page.locator('#cc-main .pm__table-td').first().getAttribute('data-column')).toBe(en.cookie_name);
      expect(await page.locator('#cc-main img').count()).toBe(0);
      await toggle.check({ force: true });
      await page.getByRole('button', { name: 'Save preferences', exact: true }).click();
      await expect.poll(() => page.evaluate(() => window.Consentry!.acceptedCategory('analytics'))).toBe(false);
      expect(await page.evaluate(() => window.Consentry!.getConsent()?.accepted.length)).toBe(2);
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await call(t.app, 'DELETE', `/api/v1/categories/${created.body.data.id}`, { token: tenant.tokens.account });
      await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { translations: { en: null } } } });
    }
  });

  it('runs once when its tag is on the page twice: one banner, one Consent Mode default, a working API', async () => {
    const { context, page, errors, warnings } = await visit({ twice: true });
    const defaults = () => page.evaluate(() => (window.dataLayer ?? []).map((entry) => (entry as ArrayLike<unknown>)[1]));
    await acceptLabel(page);
    expect(await page.locator('#cc-main').count()).toBe(1);
    // One copy's Consent Mode: a default per shipped regional rule, one for everyone else, the update of the mode.
    expect(await defaults()).toEqual(['default', 'default', 'default', 'update']);
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => page.evaluate(() => window.Consentry!.getConsent()?.accept_type)).toBe('all');
    await page.evaluate(() => window.Consentry!.showPreferences());
    await page.locator('#cc-main .pm').waitFor();
    await page.reload();
    await expect.poll(() => page.evaluate(() => window.Consentry?.acceptedCategory('analytics'))).toBe(true);
    expect(await defaults()).toEqual(['default', 'default', 'default', 'update']);
    expect(warnings).toEqual(Array(2).fill('Consentry: the banner script is on this page more than once; only its first copy runs.'));
    expect(errors).toEqual([]);
    await context.close();
  });

  it('answers a returning visitor\'s choice as soon as the script has run, as it does once the page is loaded', async () => {
    const { context, page, errors } = await visit({ probe: true });
    const early = () => page.evaluate(() => (window as any).early);
    expect(await early()).toEqual({ readyState: 'loading', consent: null, analytics: false, necessary: false });
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => page.evaluate(() => window.Consentry!.getConsent()?.consent_id)).toEqual(expect.any(String));
    await page.reload();
    const loaded = await page.evaluate(() => window.Consentry!.getConsent());
    expect(loaded).toMatchObject({ accept_type: 'all', accepted: ['necessary', 'analytics'], rejected: [], consent_id: expect.any(String) });
    expect(await early()).toEqual({ readyState: 'loading', consent: loaded, analytics: true, necessary: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  /** The account's own choice cookie (its name carries the account's id). */
  const own = () => `consentry_${tenant.account.id.replace(/-/g, '')}`;
  const choiceCookies = async (context: BrowserContext, name = own()) =>
    (await context.cookies()).filter((c) => c.name === name).map((c) => ({ domain: c.domain, choice: JSON.parse(decodeURIComponent(c.value)) }));

  it('keeps the choice on the account\'s domain: a withdrawal on www. holds on every host', async () => {
    const context = await browser.newContext();
    const bare = await visit({ context });
    await bare.page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => bare.page.evaluate(() => window.Consentry!.getConsent()?.consent_id)).toEqual(expect.any(String));
    expect((await choiceCookies(context)).map((c) => c.domain)).toEqual(['.shop.localhost']);

    const www = await visit({ context, host: 'www.shop.localhost' });
    expect(await www.page.evaluate(() => window.Consentry!.acceptedCategory('analytics'))).toBe(true);
    await www.page.evaluate(() => window.Consentry!.showPreferences());
    await www.page.locator('#cc-main .pm').getByRole('button', { name: 'Reject all', exact: true }).click();
    await expect.poll(() => www.page.evaluate(() => window.Consentry!.getConsent()?.accept_type)).toBe('necessary');
    await www.page.reload();
    expect(await www.page.evaluate(() => window.Consentry!.getConsent()?.accept_type)).toBe('necessary');
    await bare.page.reload();
    expect(await bare.page.evaluate(() => window.Consentry!.getConsent()?.accept_type)).toBe('necessary');
    const cookies = await choiceCookies(context);
    expect(cookies.map((c) => [c.domain, c.choice.categories])).toEqual([['.shop.localhost', ['necessary']]]);
    expect(www.errors.concat(bare.errors)).toEqual([]);
    await context.close();
  });

  /** A day from now, in seconds: when the copies a test writes expire. */
  const expires = Math.floor(Date.now() / 1000) + 86_400;
  /** A choice cookie's value as the library writes it, made at `at`, for the account's revision now. */
  async function storedChoice(sessionId: string) {
    const { revision } = (await call(t.app, 'GET', '/api/v1/banner', { token: tenant.tokens.account })).body.data;
    return (categories: string[], at: string) => encodeURIComponent(JSON.stringify({
      categories, revision, data: { session_id: sessionId }, consentTimestamp: at, consentId: `id-${at}`,
      services: {}, languageCode: 'en', lastConsentTimestamp: at, expirationTime: Date.now() + 86_400_000,
    }));
  }

  it('reads the newest of several copies of the choice, keeps it alone, and a new choice replaces it everywhere', async () => {
    const choice = await storedChoice('stale-copies');
    const context = await browser.newContext();
    // Written by an older script on each host it ran on: the parent's (older, listed first) and www.'s.
    await context.addCookies([{ name: own(), value: choice(['necessary', 'analytics'], '2026-01-01T00:00:00.000Z'), domain: '.shop.localhost', path: '/', expires }]);
    await context.addCookies([{ name: own(), value: choice(['necessary'], '2026-02-01T00:00:00.000Z'), domain: '.www.shop.localhost', path: '/', expires }]);
    const { page, errors } = await visit({ context, host: 'www.shop.localhost' });
    expect(await page.evaluate(() => window.Consentry!.acceptedCategory('analytics'))).toBe(false);
    expect(await page.evaluate(() => window.Consentry!.getConsent()?.accept_type)).toBe('necessary');
    expect((await choiceCookies(context)).map((c) => [c.domain, c.choice.lastConsentTimestamp])).toEqual([['.shop.localhost', '2026-02-01T00:00:00.000Z']]);

    // An older script in another tab writes on www. again: the next choice deletes that copy.
    await context.addCookies([{ name: own(), value: choice(['necessary'], '2026-03-01T00:00:00.000Z'), domain: '.www.shop.localhost', path: '/', expires }]);
    await page.evaluate(() => window.Consentry!.showPreferences());
    await page.locator('#cc-main .pm').getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(async () => (await choiceCookies(context)).map((c) => [c.domain, c.choice.categories])).toEqual([['.shop.localhost', ['necessary', 'analytics']]]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("takes a choice an older script stored under the shared name, and never touches another account's", async () => {
    const choice = await storedChoice('legacy');
    const context = await browser.newContext();
    const neighbour = 'consentry_0190000000007000800000000000beef';
    // What scripts before the account's own name wrote on this host, and a neighbouring account's choice on a parent.
    await context.addCookies([
      { name: 'consentry', value: choice(['necessary'], '2026-01-01T00:00:00.000Z'), domain: '.shop.localhost', path: '/', expires },
      { name: neighbour, value: choice(['necessary', 'analytics'], '2026-05-01T00:00:00.000Z'), domain: '.localhost', path: '/', expires },
    ]);
    const { page, errors } = await visit({ context });
    // A returning visitor: no banner, the old choice answered and copied to the account's own cookie.
    expect(await page.evaluate(() => window.Consentry!.getConsent()?.accept_type)).toBe('necessary');
    expect(await page.locator('#cc-main .cm').isVisible()).toBe(false);
    expect((await choiceCookies(context)).map((c) => [c.domain, c.choice.categories])).toEqual([['.shop.localhost', ['necessary']]]);

    await page.evaluate(() => window.Consentry!.showPreferences());
    await page.locator('#cc-main .pm').getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(async () => (await choiceCookies(context)).map((c) => c.choice.categories)).toEqual([['necessary', 'analytics']]);
    // The neighbour's choice and the old shared cookie are as they were.
    expect((await choiceCookies(context, neighbour)).map((c) => c.choice.lastConsentTimestamp)).toEqual(['2026-05-01T00:00:00.000Z']);
    expect((await choiceCookies(context, 'consentry')).map((c) => c.choice.categories)).toEqual([['necessary']]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('leaves a page view to its beacon when the choice made on it could not be recorded', async () => {
    const pageviews = () => pageviewsOf(t.services, tenant.account.id);
    const { context, page } = await visit();
    const before = await settledPageviewsOf(t.services, tenant.account.id);
    await page.route('**/consents', (route) => route.abort());
    const failed = new Promise((resolve) => page.on('requestfailed', (request) => { if (request.url().endsWith('/consents')) resolve(true); }));
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await failed;
    await page.waitForTimeout(300);
    expect(await pageviews()).toBe(before);
    await page.goto('about:blank');
    await expect.poll(pageviews).toBe(before + 1);
    await context.close();
  });

  it('shows no earlier choice\'s consent id for a new choice that was not recorded', async () => {
    const { context, page, errors } = await visit();
    const consentId = () => page.evaluate(() => window.Consentry!.getConsent()?.consent_id);
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(consentId).toEqual(expect.any(String));
    const first = await consentId();
    await page.route('**/consents', (route) => route.abort());
    const failed = new Promise((resolve) => page.on('requestfailed', (request) => { if (request.url().endsWith('/consents')) resolve(true); }));
    await page.evaluate(() => window.Consentry!.showPreferences());
    await expect.poll(() => page.locator('#consentry-consent-id').textContent()).toContain(first);
    await page.locator('#cc-main .pm').getByRole('button', { name: 'Reject all', exact: true }).click();
    await failed;
    await page.waitForTimeout(300);
    // The receipt of "Accept all" is not one of "Reject all": neither answered, shown nor kept.
    expect(await page.evaluate(() => window.Consentry!.getConsent())).toMatchObject({ accept_type: 'necessary', consent_id: null });
    await page.evaluate(() => window.Consentry!.showPreferences());
    await page.locator('#cc-main .pm').waitFor();
    expect(await page.locator('#consentry-consent-id').count()).toBe(0);
    expect((await choiceCookies(context)).map((c) => c.choice.data.consent_id ?? null)).toEqual([null]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sends a choice whose answer was lost again, with the same key: the service stores it once', async () => {
    const { context, page, errors } = await visit();
    const bodies: { idempotency_key: string; consent: { session_id: string } }[] = [];
    await page.route('**/consents', async (route) => {
      bodies.push(JSON.parse(route.request().postData()!));
      if (bodies.length > 1) return route.continue();
      // The first reaches the service, which stores it; its answer is lost on the way back.
      await route.fetch();
      return route.abort('connectionreset');
    });
    const consentId = () => page.evaluate(() => window.Consentry!.getConsent()?.consent_id);
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(consentId).toEqual(expect.any(String));
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[0].idempotency_key).toMatch(/^[0-9a-f]{32}$/);
    const rows = await t.services.db.selectFrom('consents').select('id')
      .where('account_id', '=', tenant.account.id).where('session_id', '=', bodies[0].consent.session_id).execute();
    expect(rows.map((row) => row.id)).toEqual([await consentId()]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('tells the site\'s developer once, in the console, when the service refuses the page\'s origin', async () => {
    const { context, page, errors, warnings } = await visit({ host: 'other.localhost' });
    const refused: string[] = [];
    page.on('requestfailed', (request) => { if (request.url().endsWith('/consents')) refused.push(request.url()); });
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => refused.length).toBe(1);
    await page.evaluate(() => window.Consentry!.showPreferences());
    await page.locator('#cc-main .pm').getByRole('button', { name: 'Reject all', exact: true }).click();
    await expect.poll(() => refused.length).toBe(2);
    await page.waitForTimeout(300);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`this page's origin (http://other.localhost:${shop.port})`);
    expect(warnings[0]).toContain('allowed_domains');
    expect(errors).toEqual([]);
    await context.close();
  });
});
