import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { bannerShop } from '../../helpers/banner-shop.ts';
import { RETRIED_UNDER_CI, describeBrowser, newVisitor, reportRetries } from '../../helpers/browser.ts';
import { pageviewsOf, settledPageviewsOf } from '../../helpers/records.ts';
import { newId } from '../../../src/db/ids.ts';
import { OWN_COOKIE_DESCRIPTIONS } from '../../../banner/src/own-cookie.ts';
import { TRANSLATIONS } from '../../../banner/src/translations.ts';

/**
 * The banner in a real browser: a demo shop served by this test on its own loopback origin
 * (http://localhost:PORT) loads the script from the real service (http://127.0.0.1:PORT). The
 * embedded project only (vitest.config.ts): the API under the banner is tested on both engines.
 */
describeBrowser('the banner on a website', RETRIED_UNDER_CI, () => {
  reportRetries();
  const { t, tenants: [tenant, refused], browser, shop } = bannerShop(['Browser', 'Refused'], (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/external.js') {
      response.setHeader('content-type', 'text/javascript');
      return response.end('window.externalRuns = (window.externalRuns || 0) + 1;');
    }
    if (url.pathname === '/frame.html') {
      response.setHeader('content-type', 'text/html');
      return response.end('<!doctype html><p>video</p>');
    }
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(page(url.searchParams.get('account') ?? tenant.account.id, url.searchParams.get('lang') ?? 'en'));
  });
  const ids: Record<string, string> = {};
  let served = 0;

  const page = (accountId: string, lang = 'en') => `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>Demo shop</title>
<script src="${t.url}/widget/${accountId}.js?r=${++served}"></script>
<script type="text/plain" data-category="analytics">window.inlineRuns = (window.inlineRuns || 0) + 1;</script>
<script type="text/plain" data-category="analytics" data-src="/external.js"></script>
</head><body>
<main id="content"><h1>Demo shop</h1><p>Things for sale.</p></main>
<iframe data-category="marketing" data-src="/frame.html" title="Video"></iframe>
</body></html>`;

  beforeAll(async () => {
    await t.services.db.updateTable('accounts').set({ allowed_domains: JSON.stringify(['localhost']) }).where('id', '=', tenant.account.id).execute();
    const token = tenant.tokens.account;
    const hostile = 'Ads <img src="/nowhere.png" onerror="window.injected = true">';
    for (const [name, required, description] of [['Necessary', true, ''], ['Analytics', false, 'Counts visits'], ['Marketing', false, hostile]] as const) {
      ids[name.toLowerCase()] = (await call(t.app, 'POST', '/api/v1/categories', { token, body: { category: { name, required, description } } })).body.data.id;
    }
    await call(t.app, 'POST', '/api/v1/categories', { token: refused.tokens.account, body: { category: { name: 'Analytics' } } });
    for (const service of [
      { name: 'Matomo', company_name: 'InnoCraft', category_id: ids.analytics, privacy_policy_url: 'https://matomo.example/privacy?a=1&b=2' },
      { name: 'Ad <img src="/nowhere.png" onerror="window.injectedService = true">', category_id: ids.marketing },
    ]) expect((await call(t.app, 'POST', '/api/v1/services', { token, body: { service } })).status).toBe(201);
    // A row written around the API's checks: the banner still links only to http(s) addresses.
    await t.services.db.insertInto('services').values({
      id: newId(), account_id: tenant.account.id, name: 'Scripted', slug: 'scripted', category_id: ids.analytics, privacy_policy_url: 'javascript:window.injectedService=true',
    }).execute();
    await t.services.forgetBanner([tenant.account.id]);
    for (const [name, storage_type] of [['_ga', 'cookie'], ['_ga_*', 'cookie'], ['ajs_user_id', 'local_storage']]) {
      const res = await call(t.app, 'POST', '/api/v1/storage-items', {
        token, body: { storage_item: { name, storage_type, category_id: ids.analytics, status: 'finalised', duration: '1 year', description: 'Counts visits' } },
      });
      expect(res.status).toBe(201);
    }
  });

  /** A new visitor (fresh cookies and storage); `gpc` makes the browser send the GPC property. */
  async function visit(options: { gpc?: boolean; account?: string; lang?: string; locale?: string; prepare?: (page: Page) => Promise<void> } = {}): Promise<{ context: BrowserContext; page: Page; errors: Error[] }> {
    const { context, page, errors } = await newVisitor(browser, options);
    await options.prepare?.(page);
    const query = new URLSearchParams({ account: options.account ?? tenant.account.id, lang: options.lang ?? 'en' });
    await page.goto(`${shop.url}/?${query}`);
    return { context, page, errors };
  }

  const banner = (page: Page) => page.getByRole('dialog').filter({ has: page.getByRole('button', { name: 'Accept all', exact: true }) }).first();
  const sessionOf = (page: Page) => page.evaluate(() => window.Consentry!.getConsent()?.session_id);
  const recorded = async (sessionId: string) => {
    let consents: any[] = [];
    await expect.poll(async () => {
      consents = (await call(t.app, 'GET', `/api/v1/consents?session_id=${sessionId}`, { token: tenant.tokens.account })).body.data;
      return consents.length;
    }).toBeGreaterThan(0);
    return consents[0];
  };
  const dataLayer = (page: Page) => page.evaluate(() => (window.dataLayer ?? []).map((entry) => Array.from(entry as ArrayLike<unknown>)));

  it('shows the banner with its three buttons, and window.Consentry', async () => {
    const { context, page, errors } = await visit();
    await expect.poll(() => banner(page).isVisible()).toBe(true);
    for (const name of ['Accept all', 'Reject all', 'Manage preferences']) {
      expect(await page.getByRole('button', { name, exact: true }).isVisible()).toBe(true);
    }
    expect(await page.evaluate(() => typeof window.Consentry?.getConsent)).toBe('function');
    expect(await page.evaluate(() => window.Consentry!.getConsent())).toBeNull();
    expect(await page.evaluate(() => window.Consentry!.acceptedCategory('analytics'))).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('"Accept all" records every category, updates Consent Mode and runs the gated scripts, again on reload', async () => {
    const { context, page, errors } = await visit();
    await banner(page).waitFor();
    expect(await page.evaluate(() => [(window as any).inlineRuns, (window as any).externalRuns])).toEqual([undefined, undefined]);
    expect(await page.locator('iframe[title="Video"]').getAttribute('src')).toBeNull();
    // Consent Mode: denied for everyone no rule covers (this visitor's loopback address is nowhere),
    // then the update of the opt-in mode, still denied.
    const denied = {
      ad_storage: 'denied', ad_user_data: 'denied', ad_personalization: 'denied', analytics_storage: 'denied',
      functionality_storage: 'denied', personalization_storage: 'denied',
    };
    const layer = await dataLayer(page);
    expect(layer.filter((entry) => entry[1] === 'default' && !('region' in (entry[2] as object)))).toEqual([['consent', 'default', {
      ...denied, security_storage: 'granted', wait_for_update: 500,
    }]]);
    expect(layer.at(-1)).toEqual(['consent', 'update', denied]);

    const changes = page.evaluate(() => new Promise((resolve) => window.addEventListener('consentry:change', (e) => resolve((e as CustomEvent).detail), { once: true })));
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    expect(await changes).toMatchObject({ accept_type: 'all', accepted: ['necessary', 'analytics', 'marketing'], rejected: [] });
    await expect.poll(() => banner(page).isVisible()).toBe(false);
    const sessionId = (await sessionOf(page))!;
    // The time it began in base 36, then 24 random hex digits: new sessions sort last in the session index.
    expect(sessionId).toMatch(/^[0-9a-z]{8}[0-9a-f]{24}$/);
    expect(Math.abs(parseInt(sessionId.slice(0, 8), 36) - Date.now())).toBeLessThan(120_000);
    const consent = await recorded(sessionId);
    expect(consent.user_preferences).toEqual({
      accept_type: 'all', accepted_categories: [ids.necessary, ids.analytics, ids.marketing], rejected_categories: [], accepted_services: {}, rejected_services: {},
    });
    expect(consent.url).toContain(shop.url);
    expect(consent.gpc).toBe(false);
    await expect.poll(() => page.evaluate(() => window.Consentry!.getConsent()?.consent_id)).toBe(consent.id);
    await expect.poll(() => page.evaluate(() => [(window as any).inlineRuns, (window as any).externalRuns])).toEqual([1, 1]);
    expect(await page.locator('iframe[title="Video"]').getAttribute('src')).toBe('/frame.html');
    expect((await dataLayer(page)).at(-1)).toEqual(['consent', 'update', {
      ad_storage: 'granted', ad_user_data: 'granted', ad_personalization: 'granted', analytics_storage: 'granted',
      functionality_storage: 'denied', personalization_storage: 'denied',
    }]);

    // A returning visitor: no banner, the update right after the defaults, the gated scripts at load.
    await page.reload();
    await expect.poll(() => page.evaluate(() => [(window as any).inlineRuns, (window as any).externalRuns])).toEqual([1, 1]);
    expect(await banner(page).isVisible()).toBe(false);
    const again = await dataLayer(page);
    expect(again.map((entry) => entry[1])).toEqual(['default', 'default', 'default', 'update']);
    expect((again[3][2] as Record<string, string>).analytics_storage).toBe('granted');
    expect(await page.evaluate(() => window.Consentry!.acceptedCategory('marketing'))).toBe(true);
    // The visitor's consent id is shown in the preferences, linking to their receipt.
    await page.evaluate(() => window.Consentry!.showPreferences());
    const link = page.locator('#consentry-consent-id a');
    await link.waitFor();
    expect(await page.locator('#consentry-consent-id').textContent()).toBe(`Your consent ID: ${consent.id}`);
    expect(await link.getAttribute('href')).toBe(`${t.url}/widget/${tenant.account.id}/consents/${consent.id}?session_id=${consent.session_id}`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('"Reject all" records only the required category, runs nothing gated and clears rejected storage', async () => {
    const { context, page, errors } = await visit();
    await banner(page).waitFor();
    await page.evaluate(() => {
      document.cookie = '_ga=GA1.1.1; path=/';
      document.cookie = '_ga_ABC123=GS1.1; path=/';
      document.cookie = 'keep_me=1; path=/';
      localStorage.setItem('ajs_user_id', 'u1');
      localStorage.setItem('unrelated', 'x');
    });
    await page.getByRole('button', { name: 'Reject all', exact: true }).click();
    const consent = await recorded((await sessionOf(page))!);
    expect(consent.user_preferences).toMatchObject({
      accept_type: 'necessary', accepted_categories: [ids.necessary], rejected_categories: [ids.analytics, ids.marketing],
    });
    const cookies = (await context.cookies()).map((c) => c.name).sort();
    expect(cookies).toEqual([`consentry_${tenant.account.id.replace(/-/g, '')}`, 'keep_me']);
    expect(await page.evaluate(() => [localStorage.getItem('ajs_user_id'), localStorage.getItem('unrelated')])).toEqual([null, 'x']);
    expect(await page.evaluate(() => [(window as any).inlineRuns, (window as any).externalRuns])).toEqual([undefined, undefined]);
    expect((await dataLayer(page)).at(-1)).toEqual(['consent', 'update', {
      ad_storage: 'denied', ad_user_data: 'denied', ad_personalization: 'denied', analytics_storage: 'denied',
      functionality_storage: 'denied', personalization_storage: 'denied',
    }]);
    // A tracker that sets its cookie again is cleared on the next page load.
    await page.evaluate(() => { document.cookie = '_ga=GA1.1.2; path=/'; });
    await page.reload();
    await expect.poll(async () => (await context.cookies()).map((c) => c.name).includes('_ga')).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('records a custom choice from the preferences, where each toggle is named after its category', async () => {
    const { context, page } = await visit();
    await page.getByRole('button', { name: 'Manage preferences', exact: true }).click();
    const analytics = page.getByRole('checkbox', { name: 'Analytics' });
    await analytics.waitFor();
    expect(await page.getByRole('checkbox', { name: 'Necessary' }).isDisabled()).toBe(true);
    expect(await page.locator('#cc-main .pm td', { hasText: '_ga_*' }).count()).toBe(1);
    // The service's texts are shown as text: a category's markup never runs in the website.
    expect(await page.locator('#cc-main .pm').textContent()).toContain('Ads <img src="/nowhere.png"');
    expect(await page.evaluate(() => (window as any).injected)).toBeUndefined();
    await analytics.check();
    await page.getByRole('button', { name: 'Save preferences', exact: true }).click();
    const consent = await recorded((await sessionOf(page))!);
    expect(consent.user_preferences).toMatchObject({
      accept_type: 'custom', accepted_categories: [ids.necessary, ids.analytics], rejected_categories: [ids.marketing],
    });
    await expect.poll(() => page.evaluate(() => (window as any).inlineRuns)).toBe(1);
    expect(await page.locator('iframe[title="Video"]').getAttribute('src')).toBeNull();
    await context.close();
  });

  it('names each category\'s services in the preferences, linked to their privacy policies, as text', async () => {
    const { context, page } = await visit();
    await page.getByRole('button', { name: 'Manage preferences', exact: true }).click();
    // A category's details (its description, services and storage table) open under its title.
    await page.locator('#cc-main .pm').getByRole('button', { name: 'Analytics', exact: true }).click();
    const policy = page.locator('#cc-main .pm').getByRole('link', { name: 'Matomo', exact: true });
    await policy.waitFor();
    expect(await policy.getAttribute('href')).toBe('https://matomo.example/privacy?a=1&b=2');
    expect(await policy.getAttribute('rel')).toBe('noopener');
    const text = await page.locator('#cc-main .pm').textContent();
    expect(text).toContain('Services that receive data: Matomo (InnoCraft)');
    expect(text).toContain('Services that receive data: Ad <img src="/nowhere.png"');
    expect(await page.locator('#cc-main .pm').getByRole('link', { name: 'Scripted' }).count()).toBe(0);
    expect(text).toContain('Matomo (InnoCraft), Scripted');
    expect(await page.evaluate(() => (window as any).injectedService)).toBeUndefined();
    await context.close();
  });

  it('honours Global Privacy Control: says so, and "Accept all" leaves marketing off unless switched on', async () => {
    const { context, page } = await visit({ gpc: true });
    await banner(page).waitFor();
    expect(await banner(page).textContent()).toContain('Global Privacy Control');
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    const consent = await recorded((await sessionOf(page))!);
    expect(consent.gpc).toBe(true);
    expect(consent.user_preferences).toMatchObject({
      accept_type: 'custom', accepted_categories: [ids.necessary, ids.analytics], rejected_categories: [ids.marketing],
    });
    expect((await dataLayer(page)).at(-1)?.[2]).toMatchObject({ analytics_storage: 'granted', ad_storage: 'denied' });

    // The visitor turns marketing on in the preferences: that is their choice to make.
    await page.evaluate(() => window.Consentry!.showPreferences());
    await page.getByRole('checkbox', { name: 'Marketing' }).check();
    await page.getByRole('button', { name: 'Save preferences', exact: true }).click();
    await expect.poll(async () => (await call(t.app, 'GET', `/api/v1/consents?session_id=${consent.session_id}`, { token: tenant.tokens.account })).body.data.length).toBe(2);
    const latest = (await call(t.app, 'GET', `/api/v1/consents?session_id=${consent.session_id}`, { token: tenant.tokens.account })).body.data[0];
    expect(latest.user_preferences.accepted_categories).toContain(ids.marketing);
    await context.close();
  });

  it('asks again when the revision changes', async () => {
    const { context, page } = await visit();
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    const sessionId = (await sessionOf(page))!;
    await recorded(sessionId);
    await page.reload();
    await page.waitForFunction(() => window.Consentry?.getConsent() !== undefined);
    await page.waitForTimeout(300);
    expect(await banner(page).isVisible()).toBe(false);
    expect((await call(t.app, 'POST', '/api/v1/banner/reconsent', { token: tenant.tokens.account })).status).toBe(200);
    await page.reload();
    await expect.poll(() => banner(page).isVisible()).toBe(true);
    expect(await banner(page).textContent()).toContain('asking again');
    expect(await page.evaluate(() => window.Consentry!.getConsent())).toBeNull();
    await page.getByRole('button', { name: 'Reject all', exact: true }).click();
    // The same visitor: the session id survives the new question.
    await expect.poll(async () => (await call(t.app, 'GET', `/api/v1/consents?session_id=${sessionId}`, { token: tenant.tokens.account })).body.data.length).toBe(2);
    await context.close();
  });

  it('works with the keyboard alone, without moving the page', async () => {
    const { context, page } = await visit();
    const before = await page.locator('#content').boundingBox();
    await banner(page).waitFor();
    await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('#cc-main'))).toBe(true);
    expect(await page.locator('#content').boundingBox()).toEqual(before);
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim());
    for (let i = 0; i < 10 && (await focused()) !== 'Manage preferences'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('Manage preferences');
    await page.keyboard.press('Enter');
    const analytics = page.getByRole('checkbox', { name: 'Analytics' });
    await analytics.waitFor();
    await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('#cc-main .pm'))).toBe(true);
    for (let i = 0; i < 20 && !(await analytics.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    expect(await analytics.isChecked()).toBe(true);
    for (let i = 0; i < 30 && (await focused()) !== 'Save preferences'; i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const consent = await recorded((await sessionOf(page))!);
    expect(consent.user_preferences).toMatchObject({ accept_type: 'custom', accepted_categories: [ids.necessary, ids.analytics] });
    expect(await page.locator('#content').boundingBox()).toEqual(before);
    // Escape closes the preferences without saving.
    await page.evaluate(() => window.Consentry!.showPreferences());
    await expect.poll(() => analytics.isVisible()).toBe(true);
    await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('#cc-main .pm'))).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => analytics.isVisible()).toBe(false);
    await context.close();
  });

  it('counts each page it is loaded on as one page view, and names the session it asked there', async () => {
    const pageviews = () => pageviewsOf(t.services, tenant.account.id);
    const before = await settledPageviewsOf(t.services, tenant.account.id);
    // What the page itself sent, so that a wrong count says whether the banner or the service
    // miscounted. A beacon sent as the page is left is not among Playwright's requests, and a page
    // being left cannot call out: each load of the shop notes its beacons in the shop's storage.
    const prepare = async (page: Page) => {
      await page.addInitScript(() => {
        const send = navigator.sendBeacon.bind(navigator);
        navigator.sendBeacon = (url, data) => {
          localStorage.setItem('beacons', JSON.stringify([...JSON.parse(localStorage.getItem('beacons') ?? '[]'), data ?? null]));
          return send(url, data);
        };
      });
    };
    // A page left without a choice: the beacon, when it is left.
    const { context, page } = await visit({ prepare });
    await page.getByRole('button', { name: 'Accept all', exact: true }).waitFor();
    await page.waitForTimeout(300);
    expect(await pageviews()).toBe(before);
    await page.goto('about:blank');
    await expect.poll(pageviews).toBe(before + 1);
    // A page where the visitor chooses: its consent counts it, and no beacon counts it again.
    await page.goBack();
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(pageviews).toBe(before + 2);
    await page.goto('about:blank');
    await page.waitForTimeout(500);
    const counted = await pageviews();
    await page.goBack();
    const session = (await sessionOf(page))!;
    // One beacon, for the page left without a choice: it names the session the banner asked there
    // (a visitor of the consent rate).
    const beacons = async () => JSON.parse((await page.evaluate(() => localStorage.getItem('beacons')))!) as (string | null)[];
    expect(await beacons(), 'beacons the banner sent').toHaveLength(1);
    expect((await beacons())[0]).toMatch(/^\{"session_id":"[0-9a-z]{32}"\}$/);
    // Pages whose choice holds ask nobody: their beacons name no one.
    await page.reload();
    await page.waitForFunction(() => window.Consentry?.getConsent()?.accept_type === 'all');
    await page.goto('about:blank');
    await page.goBack();
    const later = (await beacons()).slice(1);
    expect(later.length).toBeGreaterThan(0);
    expect(later.every((body) => body === null)).toBe(true);
    expect((await call(t.app, 'GET', `/api/v1/consents?session_id=${session}`, { token: tenant.tokens.account })).body.data, 'consents stored').toHaveLength(1);
    expect(counted).toBe(before + 2);
    await context.close();
  });

  it('speaks the page\'s language to a browser asking for one the banner does not speak', async () => {
    const { context, page } = await visit({ lang: 'de-AT', locale: 'ja-JP' });
    await page.getByRole('button', { name: 'Alle akzeptieren', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Alle ablehnen', exact: true }).isVisible()).toBe(true);
    await context.close();
  });

  it('speaks a region\'s texts, falling back to its language\'s, in any letter case', async () => {
    const translations = { 'de-CH': { accept_all: 'Alles annehmen' }, de: { reject_all: 'Nein danke' } };
    // The page's language first: the test's browser asks for English.
    const set = await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { translations, language_sources: ['page', 'browser', 'default'] } } });
    expect(set.status).toBe(200);
    try {
      const swiss = await visit({ lang: 'de-ch' });
      await swiss.page.getByRole('button', { name: 'Alles annehmen', exact: true }).waitFor();
      expect(await swiss.page.getByRole('button', { name: 'Nein danke', exact: true }).isVisible()).toBe(true);
      await swiss.context.close();
      const austrian = await visit({ lang: 'de-AT' });
      await austrian.page.getByRole('button', { name: 'Alle akzeptieren', exact: true }).waitFor();
      expect(await austrian.page.getByRole('button', { name: 'Nein danke', exact: true }).isVisible()).toBe(true);
      await austrian.context.close();
    } finally {
      await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { translations: { 'de-CH': null, de: null }, language_sources: ['browser', 'page', 'default'] } } });
    }
  });

  it('shows no error to the visitor when the service refuses the page\'s origin', async () => {
    const { context, page, errors } = await visit({ account: refused.account.id });
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => { dialogs.push(dialog.message()); void dialog.dismiss(); });
    const sent: string[] = [];
    page.on('requestfinished', (request) => { if (request.url().includes('/consents')) sent.push('finished'); });
    page.on('requestfailed', (request) => { if (request.url().includes('/consents')) sent.push('failed'); });
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => sent.length).toBe(1);
    await expect.poll(() => banner(page).isVisible()).toBe(false);
    expect(await page.evaluate(() => window.Consentry!.acceptedCategory('analytics'))).toBe(true);
    expect(await page.evaluate(() => window.Consentry!.getConsent()?.consent_id)).toBeNull();
    expect(errors).toEqual([]);
    expect(dialogs).toEqual([]);
    const stored = await call(t.app, 'GET', '/api/v1/consents', { token: refused.tokens.account });
    expect(stored.body.data).toEqual([]);
    await context.close();
  });

  it('describes its own consent cookie in the visitor\'s language when the account left it undescribed', async () => {
    const name = `consentry_${tenant.account.id.replace(/-/g, '')}`;
    const made = await call(t.app, 'POST', '/api/v1/storage-items', {
      token: tenant.tokens.account, body: { storage_item: { name, category_id: ids.necessary, status: 'finalised', duration: '1 year' } },
    });
    expect(made.status).toBe(201);
    try {
      for (const [lang, language] of [['de-AT', 'de'], ['fr', 'fr'], ['en', 'en']] as const) {
        // The browser's language comes first: the page and the browser both ask for the language tried.
        const { context, page } = await visit({ lang, locale: lang });
        await page.getByRole('button', { name: TRANSLATIONS[language].manage, exact: true }).click();
        await page.locator('#cc-main .pm').getByRole('button', { name: 'Necessary', exact: true }).click();
        const row = page.locator('#cc-main .pm tr').filter({ hasText: name });
        await row.waitFor();
        expect(await row.textContent()).toContain(OWN_COOKIE_DESCRIPTIONS[language]);
        await context.close();
      }
    } finally {
      await call(t.app, 'DELETE', `/api/v1/storage-items/${made.body.data.id}`, { token: tenant.tokens.account });
    }
  });
});
