import { GppModel } from '@iabgpp/cmpapi';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { TRANSLATIONS } from '../../../banner/src/translations.ts';
import { call } from '../../helpers/app.ts';
import { bannerShop } from '../../helpers/banner-shop.ts';
import { RETRIED_UNDER_CI, describeBrowser, reportRetries } from '../../helpers/browser.ts';

const en = TRANSLATIONS.en;

/**
 * The banner's modes in a real browser, through the real script and service: a shop on its own
 * loopback origin (http://localhost:PORT) loads the script from the service (http://127.0.0.1:PORT),
 * which locates the visitor by the trusted headers it is configured to read. The test sets those
 * headers on the banner's region request (as a CDN would), or the page names its region itself.
 * The embedded project only (vitest.config.ts): the region request and the settings under the
 * banner are tested on both engines (widget-region, regional-settings).
 */

/** The opt-out fields of a GPP string, decoded by the IAB's library: usnat's sale, sharing, targeted ads; usca's sale, sharing. */
function optOuts(gppString: string | null) {
  const model = new GppModel(gppString ?? '');
  const field = (section: string, name: string) => model.getFieldValue(section, name);
  return {
    sections: model.getSectionIds(),
    usnat: ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut'].map((name) => field('usnat', name)),
    usca: ['SaleOptOut', 'SharingOptOut'].map((name) => field('usca', name)),
  };
}

describeBrowser('the banner by region', RETRIED_UNDER_CI, () => {
  reportRetries();
  const { t, tenants: [tenant], browser, shop } = bannerShop(['Regional'], (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(page(url.searchParams.get('region')));
  }, { GEO_COUNTRY_HEADER: 'x-test-country', GEO_REGION_HEADER: 'x-test-region' });
  const ids: Record<string, string> = {};
  let served = 0;

  const RULES = [
    { regions: ['EEA', 'GB', 'CH'], mode: 'opt-in' },
    { regions: ['US-PRIVACY-STATES'], mode: 'opt-out' },
    { regions: ['JP'], mode: 'none' },
    { regions: ['BR'], mode: 'notice' },
  ];

  const page = (region: string | null) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Regional shop</title>
<script src="${t.url}/widget/${tenant.account.id}.js?r=${++served}"${region ? ` data-region="${region}"` : ''}></script>
<script type="text/plain" data-category="analytics">window.analyticsRuns = (window.analyticsRuns || 0) + 1;</script>
<script type="text/plain" data-category="marketing">window.marketingRuns = (window.marketingRuns || 0) + 1;</script>
</head><body><main><h1>Regional shop</h1></main></body></html>`;

  const setRules = (banner: object) => call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner } });

  beforeAll(async () => {
    await t.services.db.updateTable('accounts').set({ allowed_domains: JSON.stringify(['localhost']) }).where('id', '=', tenant.account.id).execute();
    // Through the API: a category whose slug is marketing is one of sale or sharing.
    for (const [name, required] of [['Necessary', true], ['Analytics', false], ['Marketing', false]] as const) {
      const res = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name, required } } });
      expect(res.status).toBe(201);
      ids[name.toLowerCase()] = res.body.data.id;
    }
    const set = await setRules({ regional_rules: RULES, default_mode: 'opt-in', consent_mode: { ads_data_redaction: true, url_passthrough: true } });
    expect(set.status).toBe(200);
  });

  interface Visitor {
    context: BrowserContext;
    /** Where the service's trusted headers place the visitor: a country, and a region code of it. */
    at: { country?: string; region?: string };
    /** The region requests the banner made. */
    asked: () => number;
    /** What its pages printed with console.warn. */
    warnings: string[];
    open: (options?: { region?: string }) => Promise<{ page: Page; errors: Error[] }>;
  }

  /** A new visitor (own cookies and storage); `fail` makes every region request fail; `clock` is its time zone (else New York's). */
  async function visitor(at: Visitor['at'], options: { gpc?: boolean; fail?: boolean; clock?: string } = {}): Promise<Visitor> {
    const context = await browser.newContext(options.clock ? { timezoneId: options.clock } : {});
    context.setDefaultTimeout(10_000);
    if (options.gpc) {
      await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true }));
    }
    let asked = 0;
    const v: Visitor = {
      context,
      at,
      asked: () => asked,
      warnings: [],
      async open({ region } = {}) {
        const page = await context.newPage();
        const errors: Error[] = [];
        page.on('pageerror', (error) => errors.push(error));
        await page.goto(`${shop.url}/${region ? `?region=${region}` : ''}`);
        return { page, errors };
      },
    };
    context.on('console', (message) => {
      if (message.type() === 'warning') v.warnings.push(message.text());
    });
    // Set as the CDN in front of the service would, on every request to it.
    await context.route(`${t.url}/**`, (route) => {
      const region = new URL(route.request().url()).pathname.endsWith('/region');
      if (region) asked++;
      if (region && options.fail) return route.abort();
      const headers = { ...route.request().headers() };
      if (v.at.country) headers['x-test-country'] = v.at.country;
      if (v.at.region) headers['x-test-region'] = v.at.region;
      return route.continue({ headers });
    });
    return v;
  }

  const optInBanner = (page: Page) => page.getByRole('dialog').filter({ has: page.getByRole('button', { name: 'Accept all', exact: true }) });
  const notice = (page: Page) => page.locator('#cc-main .cm');
  const runs = (page: Page) => page.evaluate(() => [(window as any).analyticsRuns ?? 0, (window as any).marketingRuns ?? 0]);
  const consentOf = (page: Page) => page.evaluate(() => window.Consentry!.getConsent());
  const dataLayer = (page: Page) => page.evaluate(() => (window.dataLayer ?? []).map((entry) => Array.from(entry as ArrayLike<unknown>)));
  const consentsOf = async (sessionId: string) =>
    (await call(t.app, 'GET', `/api/v1/consents?session_id=${sessionId}`, { token: tenant.tokens.account })).body.data as any[];
  const recorded = async (page: Page, count = 1) => {
    const sessionId = (await consentOf(page))!.session_id;
    await expect.poll(async () => (await consentsOf(sessionId)).length).toBe(count);
    return (await consentsOf(sessionId))[0];
  };
  const lastUpdate = async (page: Page) => (await dataLayer(page)).filter((entry) => entry[1] === 'update').at(-1)?.[2];

  it('DE is opt-in: nothing optional runs until accepted; Consent Mode by region, UET and Clarity follow', async () => {
    const v = await visitor({ country: 'DE' });
    const { page, errors } = await v.open();
    await optInBanner(page).waitFor();
    expect(await runs(page)).toEqual([0, 0]);
    expect(await page.locator('#consentry-dns').count()).toBe(0);
    expect(await consentOf(page)).toBeNull();

    const layer = await dataLayer(page);
    const defaults = layer.filter((entry) => entry[1] === 'default').map((entry) => entry[2] as Record<string, any>);
    const inRegion = (code: string) => defaults.find((entry) => entry.region?.includes(code));
    expect(inRegion('DE')).toMatchObject({ ad_storage: 'denied', analytics_storage: 'denied', wait_for_update: 500 });
    expect(inRegion('US-CA')).toMatchObject({ ad_storage: 'granted', analytics_storage: 'granted' });
    expect(inRegion('JP')).toMatchObject({ ad_storage: 'granted' });
    expect(defaults.find((entry) => !entry.region)).toMatchObject({ ad_storage: 'denied', security_storage: 'granted' });
    expect(layer).toContainEqual(['set', 'ads_data_redaction', true]);
    expect(layer).toContainEqual(['set', 'url_passthrough', true]);
    expect(await lastUpdate(page)).toMatchObject({ ad_storage: 'denied', analytics_storage: 'denied' });
    const microsoft = () => page.evaluate(() => ({
      uet: (window as any).uetq,
      clarity: ((window as any).clarity.q ?? []).map((entry: ArrayLike<unknown>) => Array.from(entry)),
    }));
    expect(await microsoft()).toEqual({
      uet: ['consent', 'default', { ad_storage: 'denied' }],
      clarity: [['consentv2', { ad_Storage: 'denied', analytics_Storage: 'denied' }]],
    });

    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => runs(page)).toEqual([1, 1]);
    const consent = await recorded(page);
    expect(consent).toMatchObject({ mode: 'opt-in', country: 'DE', region: null, gpc: false });
    expect(await microsoft()).toEqual({
      uet: ['consent', 'default', { ad_storage: 'denied' }, 'consent', 'update', { ad_storage: 'granted' }],
      clarity: [['consentv2', { ad_Storage: 'denied', analytics_Storage: 'denied' }], ['consentv2', { ad_Storage: 'granted', analytics_Storage: 'granted' }]],
    });
    expect(v.asked()).toBe(1);
    // A returning visitor's opt-in choice needs no request, in this session or a new one.
    await page.reload();
    await expect.poll(() => runs(page)).toEqual([1, 1]);
    const later = await v.open();
    await expect.poll(() => runs(later.page)).toEqual([1, 1]);
    expect(v.asked()).toBe(1);
    expect(errors).toEqual([]);
    await v.context.close();
  });

  it('US-CA is opt-out: trackers run, the link is there; opting out stops marketing on the next page', async () => {
    const v = await visitor({ country: 'US', region: 'CA' });
    const { page, errors } = await v.open();
    await expect.poll(() => notice(page).isVisible()).toBe(true);
    expect(await notice(page).textContent()).toContain(en.opt_out_description);
    expect(await optInBanner(page).count()).toBe(0);
    await expect.poll(() => runs(page)).toEqual([1, 1]);
    expect(await consentOf(page)).toMatchObject({ mode: 'opt-out', accept_type: 'all', consent_id: null });
    expect(await lastUpdate(page)).toMatchObject({ ad_storage: 'granted', analytics_storage: 'granted' });
    // The notice blocks nothing.
    expect(await notice(page).getAttribute('aria-modal')).toBe('false');

    const link = page.locator('#consentry-dns');
    expect(await link.textContent()).toBe(en.do_not_sell);
    await link.click();
    const preferences = page.locator('#cc-main .pm');
    await preferences.getByRole('button', { name: en.do_not_sell, exact: true }).click();
    await expect.poll(() => notice(page).textContent()).toContain(en.opt_out_done);
    const consent = await recorded(page);
    expect(consent).toMatchObject({ mode: 'opt-out', country: 'US', region: 'US-CA', gpc: false });
    expect(consent.user_preferences).toMatchObject({
      accept_type: 'custom', accepted_categories: [ids.necessary, ids.analytics], rejected_categories: [ids.marketing],
    });
    // The GPP string recorded with it says so, read by the IAB's own library.
    expect(optOuts(consent.gpp_string)).toEqual({ sections: [7, 8], usnat: [1, 1, 1], usca: [1, 1] });
    expect(await lastUpdate(page)).toMatchObject({ ad_storage: 'denied', analytics_storage: 'granted' });
    // Closing the notice that says so records nothing more.
    await notice(page).getByRole('button', { name: en.dismiss, exact: true }).click();
    await expect.poll(() => notice(page).isVisible()).toBe(false);

    // The next page: marketing stays off, the link stays, and the session's region is not asked again.
    await page.reload();
    await expect.poll(() => runs(page)).toEqual([1, 0]);
    expect(await page.locator('#consentry-dns').isVisible()).toBe(true);
    expect(await notice(page).isVisible()).toBe(false);
    expect(await consentOf(page)).toMatchObject({ mode: 'opt-out', accept_type: 'custom', rejected: ['marketing'] });
    expect(v.asked()).toBe(1);
    expect((await consentsOf(consent.session_id)).length).toBe(1);
    expect(errors).toEqual([]);
    await v.context.close();
  });

  it('US-CA with Global Privacy Control: the opt-out without a click, recorded with gpc, and said', async () => {
    const v = await visitor({ country: 'US', region: 'CA' }, { gpc: true });
    const { page, errors } = await v.open();
    await expect.poll(() => notice(page).isVisible()).toBe(true);
    expect(await notice(page).textContent()).toContain(en.gpc_opt_out);
    await expect.poll(() => runs(page)).toEqual([1, 0]);
    const consent = await recorded(page);
    expect(consent).toMatchObject({ mode: 'opt-out', country: 'US', region: 'US-CA', gpc: true });
    expect(optOuts(consent.gpp_string)).toEqual({ sections: [7, 8], usnat: [1, 1, 1], usca: [1, 1] });
    expect(new GppModel(consent.gpp_string).getFieldValue('usnat', 'Gpc')).toBe(true);
    expect(consent.user_preferences).toMatchObject({ accepted_categories: [ids.necessary, ids.analytics], rejected_categories: [ids.marketing] });
    expect(await lastUpdate(page)).toMatchObject({ ad_storage: 'denied', analytics_storage: 'granted' });
    // Held on the next page, with nothing recorded again.
    await page.reload();
    await expect.poll(() => runs(page)).toEqual([1, 0]);
    await page.waitForTimeout(300);
    expect((await consentsOf(consent.session_id)).length).toBe(1);
    expect(errors).toEqual([]);
    await v.context.close();
  });

  it('a none region: no banner, everything runs, window.Consentry and Consent Mode still answer', async () => {
    const v = await visitor({ country: 'JP' });
    const { page, errors } = await v.open();
    await expect.poll(() => runs(page)).toEqual([1, 1]);
    expect(await consentOf(page)).toMatchObject({ mode: 'none', accept_type: 'all', accepted: ['necessary', 'analytics', 'marketing'] });
    expect(await page.evaluate(() => window.Consentry!.acceptedCategory('marketing'))).toBe(true);
    expect(await lastUpdate(page)).toMatchObject({ ad_storage: 'granted', analytics_storage: 'granted' });
    await page.waitForTimeout(300);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await page.locator('#consentry-dns').count()).toBe(0);
    expect(await consentsOf((await consentOf(page))!.session_id)).toEqual([]);
    // The preferences still open on the page's request.
    await page.evaluate(() => window.Consentry!.showPreferences());
    await expect.poll(() => page.getByRole('checkbox', { name: 'Marketing' }).isChecked()).toBe(true);
    expect(errors).toEqual([]);
    await v.context.close();
  });

  it('a notice region: a dismissable notice, everything on, the dismissal recorded', async () => {
    const v = await visitor({ country: 'BR' });
    const { page, errors } = await v.open();
    await expect.poll(() => notice(page).isVisible()).toBe(true);
    expect(await notice(page).textContent()).toContain(en.notice_description);
    await expect.poll(() => runs(page)).toEqual([1, 1]);
    await notice(page).getByRole('button', { name: en.dismiss, exact: true }).click();
    const consent = await recorded(page);
    expect(consent).toMatchObject({ mode: 'notice', country: 'BR', region: null });
    expect(consent.user_preferences.accept_type).toBe('all');
    await page.reload();
    await expect.poll(() => runs(page)).toEqual([1, 1]);
    expect(await notice(page).isVisible()).toBe(false);

    // The same browser in Germany, in a new session: a dismissed notice is no consent there.
    v.at = { country: 'DE' };
    const there = await v.open();
    await optInBanner(there.page).waitFor();
    expect(await runs(there.page)).toEqual([0, 0]);
    expect(await consentOf(there.page)).toBeNull();
    expect(v.asked()).toBe(2);
    expect(errors).toEqual([]);
    await v.context.close();
  });

  it('follows a rule changed by PATCH on the next page load', async () => {
    const v = await visitor({ country: 'JP' });
    const { page } = await v.open();
    await expect.poll(() => runs(page)).toEqual([1, 1]);
    try {
      expect((await setRules({ regional_rules: [{ regions: ['JP'], mode: 'opt-in' }, ...RULES] })).status).toBe(200);
      // The page loads the script afresh (its URL changes with each page here, as a browser's copy
      // expires within SCRIPT_MAX_AGE_S): the region is the session's, the mode the new rules'.
      await page.reload();
      await optInBanner(page).waitFor();
      expect(await runs(page)).toEqual([0, 0]);
      expect(v.asked()).toBe(1);
    } finally {
      await setRules({ regional_rules: RULES });
      await v.context.close();
    }
  });

  it('takes the page\'s data-region without asking, in any letter case', async () => {
    const v = await visitor({ country: 'DE' });
    const californian = await v.open({ region: 'us-ca' });
    await expect.poll(() => notice(californian.page).isVisible()).toBe(true);
    await expect.poll(() => runs(californian.page)).toEqual([1, 1]);
    expect(await consentOf(californian.page)).toMatchObject({ mode: 'opt-out' });
    await californian.page.locator('#consentry-dns').click();
    await californian.page.locator('#cc-main .pm').getByRole('button', { name: en.do_not_sell, exact: true }).click();
    expect(await recorded(californian.page)).toMatchObject({ mode: 'opt-out', country: 'US', region: 'US-CA' });

    const w = await visitor({ country: 'US', region: 'CA' });
    const german = await w.open({ region: 'DE' });
    await optInBanner(german.page).waitFor();
    expect(await runs(german.page)).toEqual([0, 0]);
    expect([v.asked(), w.asked()]).toEqual([0, 0]);
    expect([...californian.errors, ...german.errors]).toEqual([]);
    await w.context.close();
    await v.context.close();
  });

  it('says so and asks the service when data-region names no country (UK), and the choice is recorded', async () => {
    const v = await visitor({ country: 'DE' });
    const { page, errors } = await v.open({ region: 'UK' });
    await optInBanner(page).waitFor();
    expect(v.asked()).toBe(1);
    expect(v.warnings.filter((text) => text.includes('data-region="UK"'))).toEqual([
      'Consentry: data-region="UK" is not a country (DE) or a subdivision (US-CA) (the United Kingdom is GB); the region is asked of the service.',
    ]);
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    expect(await recorded(page)).toMatchObject({ mode: 'opt-in', country: 'DE' });
    expect(errors).toEqual([]);
    await v.context.close();
  });

  it('tells the developer why the service refused a choice', async () => {
    const v = await visitor({ country: 'DE' });
    // What a tag the script cannot check would send: a place the service refuses.
    await v.context.route(`${t.url}/widget/*/consents`, (route) => {
      const body = JSON.parse(route.request().postData()!);
      return route.continue({ postData: JSON.stringify({ ...body, consent: { ...body.consent, country: 'ZZ' } }) });
    });
    const { page } = await v.open();
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => v.warnings.find((text) => text.includes('refused'))).toBe(
      "Consentry: the service refused the visitor's choice (422: Country is not an ISO 3166-1 country code); it was not recorded.",
    );
    await v.context.close();
  });

  it('asks for consent when the region cannot be learnt: opt-in, the strictest mode the rules use', async () => {
    const v = await visitor({ country: 'JP' }, { fail: true });
    const { page, errors } = await v.open();
    await optInBanner(page).waitFor();
    expect(await runs(page)).toEqual([0, 0]);
    await page.getByRole('button', { name: 'Reject all', exact: true }).click();
    // Recorded as opt-in, with no place sent: the service finds it.
    expect(await recorded(page)).toMatchObject({ mode: 'opt-in', country: 'JP', region: null });
    expect(errors).toEqual([]);
    await v.context.close();
  });

  it('shows opt-in at once, asking nothing, to a clock kept only in countries under opt-in', async () => {
    // A traveller from Berlin in California: opt-in is lawful there too; the service records where they are.
    const v = await visitor({ country: 'US', region: 'CA' }, { clock: 'Europe/Berlin' });
    const { page, errors } = await v.open();
    await optInBanner(page).waitFor();
    expect(await runs(page)).toEqual([0, 0]);
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    await expect.poll(() => runs(page)).toEqual([1, 1]);
    expect(await recorded(page)).toMatchObject({ mode: 'opt-in', country: 'US', region: 'US-CA' });
    // The GPP string: no US section applies under opt-in.
    expect(await page.evaluate(() => new Promise((resolve) => window.__gpp!('ping', (data: any) => resolve(data.applicableSections))))).toEqual([-1]);
    expect(v.asked()).toBe(0);
    expect(errors).toEqual([]);
    await v.context.close();
  });

  it('asks a clock that some country keeping it treats otherwise', async () => {
    // Los Angeles: a US clock, whose states differ; Tokyo: Japan's (and Korea's), a none region here.
    const california = await visitor({ country: 'US', region: 'CA' }, { clock: 'America/Los_Angeles' });
    const inCalifornia = await california.open();
    await expect.poll(() => notice(inCalifornia.page).isVisible()).toBe(true);
    expect(await consentOf(inCalifornia.page)).toMatchObject({ mode: 'opt-out' });
    expect(california.asked()).toBe(1);
    const japan = await visitor({ country: 'JP' }, { clock: 'Asia/Tokyo' });
    const inJapan = await japan.open();
    await expect.poll(() => runs(inJapan.page)).toEqual([1, 1]);
    expect(await consentOf(inJapan.page)).toMatchObject({ mode: 'none' });
    expect(japan.asked()).toBe(1);
    await california.context.close();
    await japan.context.close();
  });
});
