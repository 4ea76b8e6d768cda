import { createRequire } from 'node:module';
import { GppModel } from '@iabgpp/cmpapi';
import { TCString, type TCModel } from '@iabtechlabtcf/core';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { TRANSLATIONS } from '../../../banner/src/translations.ts';
import { call } from '../../helpers/app.ts';
import { bannerShop } from '../../helpers/banner-shop.ts';
import { RETRIED_UNDER_CI, describeBrowser, reportRetries } from '../../helpers/browser.ts';

const en = TRANSLATIONS.en;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * The IAB TCF in a real browser, through the real script and service: a shop on its own loopback
 * origin loads the script of an account with TCF on (the test vendor list of test/fixtures/tcf,
 * version 100, loaded at start), and the page names its visitor's region (`data-region`). The TC
 * strings are read back with the IAB's own decoder.
 */

const CMP_ID = 300;
const CMP_VERSION = 2;
/** The account's vendors; vendor 30 joins the list in version 101 only (vendor-list-v2.json). */
const IN_V100 = [1, 2, 8, 10];
const ATP_IDS = [1301, 89];
const ALL_PURPOSES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

const ids = (vector: { forEach(fn: (value: boolean, id: number) => void): void }) => {
  const out: number[] = [];
  vector.forEach((value, id) => value && out.push(id));
  return out.sort((a, b) => a - b);
};

describeBrowser('the IAB TCF CMP in the browser', RETRIED_UNDER_CI, () => {
  reportRetries();
  const { t, tenants: [tenant, plain], browser, shop } = bannerShop(['Tcf', 'Plain'], (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    response.setHeader('content-type', 'text/html; charset=utf-8');
    if (url.pathname === '/frame') return response.end(FRAME);
    response.end(page(url.searchParams.get('region') ?? 'DE'));
  }, { TCF_GVL_FILE: 'test/fixtures/tcf' });
  let served = 0;

  const page = (region: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>TCF shop</title>
<script src="${t.url}/widget/${tenant.account.id}.js?r=${++served}" data-region="${region}"></script>
<script>
  // Calls made at once, before the TCF file has loaded: the stub queues them.
  window.early = [];
  __tcfapi('ping', 2, function (ping) { early.push(['ping', ping.cmpStatus]); });
  __tcfapi('addEventListener', 2, function (data, ok) { early.push(['event', data.eventStatus, data.gdprApplies, ok]); });
</script>
<script type="text/plain" data-category="analytics">window.analyticsRuns = (window.analyticsRuns || 0) + 1;</script>
<script type="text/plain" data-category="marketing">window.marketingRuns = (window.marketingRuns || 0) + 1;</script>
</head><body><main><h1>TCF shop</h1><iframe title="ad" src="/frame"></iframe></main></body></html>`;

  /** A frame that asks the page's CMP through the `__tcfapiLocator` frame, by postMessage, as an ad would. */
  const FRAME = `<!doctype html><html lang="en"><head><title>ad</title></head><body><script>
  var w = window, cmp;
  while (w) { try { if (w.frames.__tcfapiLocator) { cmp = w; break; } } catch (e) {} if (w === window.top) break; w = w.parent; }
  window.addEventListener('message', function (event) { var r = event.data && event.data.__tcfapiReturn; if (r) window.reply = r; });
  window.ask = function (callId) { cmp.postMessage({ __tcfapiCall: { command: 'ping', version: 2, callId: callId } }, '*'); };
  if (cmp) ask('frame-1');
</script></body></html>`;

  const patchTcf = (tcf: object | null, who = tenant) => call(t.app, 'PATCH', '/api/v1/banner', { token: who.tokens.admin, body: { banner: { tcf } } });

  beforeAll(async () => {
    await t.services.db.updateTable('accounts').set({ allowed_domains: JSON.stringify(['localhost']) }).where('id', '=', tenant.account.id).execute();
    for (const [name, required] of [['Necessary', true], ['Analytics', false], ['Marketing', false]] as const) {
      const res = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name, required } } });
      expect(res.status).toBe(201);
    }
    const set = await patchTcf({
      enabled: true, cmp_id: CMP_ID, cmp_version: CMP_VERSION, vendor_ids: IN_V100, publisher_country_code: 'DE',
      google_atp_ids: ATP_IDS, legitimate_interest_purposes: [7], publisher_restrictions: [],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
  });

  async function visitor(): Promise<{ context: BrowserContext; open: (region?: string) => Promise<{ page: Page; errors: Error[]; files: string[] }> }> {
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    return {
      context,
      async open(region = 'DE') {
        const p = await context.newPage();
        const errors: Error[] = [];
        const files: string[] = [];
        p.on('pageerror', (error) => errors.push(error));
        p.on('request', (request) => files.push(new URL(request.url()).pathname));
        await p.goto(`${shop.url}/?region=${region}`);
        return { page: p, errors, files };
      },
    };
  }

  const firstLayer = (p: Page) => p.locator('#consentry-tcf').getByRole('dialog', { name: en.title });
  const secondLayer = (p: Page) => p.locator('#consentry-tcf').getByRole('dialog', { name: en.preferences_title });
  /** What the banner sent with each consent (the browser's side of the record). */
  const sent = (p: Page) => {
    const bodies: any[] = [];
    p.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/consents')) bodies.push(JSON.parse(request.postData() ?? '{}').consent);
    });
    return bodies;
  };
  const tcfapi = (p: Page, command: string) =>
    p.evaluate((command) => new Promise<any>((resolve) => window.__tcfapi!(command, 2, (data: unknown, success: boolean) => resolve({ data, success }))), command);
  const ping = async (p: Page) => (await tcfapi(p, 'ping')).data;
  const tcCookie = async (context: BrowserContext) => {
    await expect.poll(async () => (await context.cookies()).find((c) => c.name === 'euconsent-v2')?.value ?? null).not.toBeNull();
    return (await context.cookies()).find((c) => c.name === 'euconsent-v2')!.value;
  };
  const consentOf = (p: Page) => p.evaluate(() => window.Consentry!.getConsent());
  const recorded = async (p: Page, count = 1) => {
    const sessionId = (await consentOf(p))!.session_id;
    const list = async () => (await call(t.app, 'GET', `/api/v1/consents?session_id=${sessionId}`, { token: tenant.tokens.account })).body.data as any[];
    await expect.poll(async () => (await list()).length).toBe(count);
    return (await list())[0];
  };
  const runs = (p: Page) => p.evaluate(() => [(window as any).analyticsRuns ?? 0, (window as any).marketingRuns ?? 0]);
  const decode = (tc: string): TCModel => TCString.decode(tc);

  it('before any choice: the first layer, __tcfapi loaded and visible, queued calls answered, frames answered; axe-clean', async () => {
    const v = await visitor();
    const { page: p, errors, files } = await v.open();
    await firstLayer(p).waitFor();
    await expect.poll(async () => (await ping(p)).cmpStatus).toBe('loaded');
    expect(await ping(p)).toMatchObject({ gdprApplies: true, cmpLoaded: true, displayStatus: 'visible', cmpId: CMP_ID, cmpVersion: CMP_VERSION, gvlVersion: 100 });
    // The banner's own dialog is not shown: the TCF screens ask.
    expect(await p.getByRole('dialog', { name: en.preferences_title }).isVisible()).toBe(false);
    expect(await p.locator('#cc-main .cm').isVisible().catch(() => false)).toBe(false);
    // The first layer: the purposes, the special features, the number of vendors, withdrawal, three buttons of one kind.
    const text = await firstLayer(p).innerText();
    for (const name of ['Store and/or access information on a device', 'Measure advertising performance', 'Use precise geolocation data']) expect(text).toContain(name);
    expect(text).toContain(`${IN_V100.length} partners`);
    expect(text).toMatch(/withdraw your consent at any time/);
    const buttons = firstLayer(p).locator('.ctcf-actions button');
    expect(await buttons.allInnerTexts()).toEqual([en.accept_all, en.reject_all, en.manage]);
    expect(new Set(await buttons.evaluateAll((all) => all.map((b) => b.className)))).toEqual(new Set(['ctcf-btn']));
    // Calls made before the TCF file loaded were queued, then answered.
    await expect.poll(() => p.evaluate(() => (window as any).early)).toContainEqual(['event', 'cmpuishown', true, true]);
    expect(await p.evaluate(() => (window as any).early[0])).toEqual(['ping', 'stub']);
    // A frame's call through the locator frame.
    const frame = p.frames().find((f) => f.url().endsWith('/frame'))!;
    await expect.poll(() => frame.evaluate(() => (window as any).reply?.callId ?? null)).toBe('frame-1');
    await frame.evaluate(() => (window as any).ask('frame-2'));
    await expect.poll(() => frame.evaluate(() => (window as any).reply?.callId ?? null)).toBe('frame-2');
    expect(await frame.evaluate(() => (window as any).reply.returnValue)).toMatchObject({ cmpStatus: 'loaded', displayStatus: 'visible', gdprApplies: true });
    expect(files.filter((f) => /^\/widget\/tcf\.[0-9a-f]{16}\.js$/.test(f))).toHaveLength(1);
    expect(files.some((f) => f.endsWith('/tcf-vendors.json'))).toBe(true);
    // Keyboard: the dialog has the focus, and Tab stays inside it.
    expect(await p.evaluate(() => !!document.activeElement?.closest('[role=dialog]'))).toBe(true);
    for (let i = 0; i < 8; i++) await p.keyboard.press('Tab');
    expect(await p.evaluate(() => !!document.activeElement?.closest('.ctcf-first'))).toBe(true);
    // axe-core, on both layers.
    await p.addScriptTag({ path: AXE });
    const axe = () => p.evaluate(async () => (await (window as any).axe.run('#consentry-tcf', { resultTypes: ['violations'] })).violations.map((v: any) => `${v.id}: ${v.nodes.length}`));
    expect(await axe()).toEqual([]);
    await firstLayer(p).getByRole('button', { name: en.manage }).click();
    await secondLayer(p).waitFor();
    await p.evaluate(() => document.querySelectorAll('#consentry-tcf details').forEach((d) => ((d as HTMLDetailsElement).open = true)));
    expect(await axe()).toEqual([]);
    // Escape goes back to the first layer (no choice made yet).
    await p.keyboard.press('Escape');
    await firstLayer(p).waitFor();
    expect(await runs(p)).toEqual([0, 0]);
    expect(errors).toEqual([]);
  });

  it('"Accept all": every purpose and the vendors consented, the settings in the string, the categories on, recorded with the AC string', async () => {
    const v = await visitor();
    const { page: p, errors } = await v.open();
    const posted = sent(p);
    await firstLayer(p).getByRole('button', { name: en.accept_all }).click();
    const tc = await tcCookie(v.context);
    const model = decode(tc);
    expect(Number(model.cmpId)).toBe(CMP_ID);
    expect(Number(model.cmpVersion)).toBe(CMP_VERSION);
    expect(Number(model.vendorListVersion)).toBe(100);
    expect(Number(model.policyVersion)).toBe(5);
    expect(model.publisherCountryCode).toBe('DE');
    expect(model.consentLanguage).toBe('EN');
    expect(Number(model.consentScreen)).toBe(1);
    expect(model.isServiceSpecific).toBe(true);
    expect(ids(model.purposeConsents)).toEqual(ALL_PURPOSES);
    expect(ids(model.specialFeatureOptins)).toEqual([1, 2]);
    expect(ids(model.vendorConsents)).toEqual(IN_V100);
    expect(ids(model.vendorsDisclosed)).toEqual(IN_V100);
    expect(await ping(p)).toMatchObject({ displayStatus: 'hidden', cmpStatus: 'loaded' });
    const data = (await tcfapi(p, 'getTCData')).data;
    expect(data).toMatchObject({ tcString: tc, gdprApplies: true, eventStatus: 'useractioncomplete', addtlConsent: '2~89.1301~dv.' });
    // GPP carries the same choice in its tcfeuv2 section.
    const gpp = await p.evaluate(() => new Promise<any>((resolve) => window.__gpp!('ping', (data) => resolve(data))));
    expect(gpp).toMatchObject({ applicableSections: [2], signalStatus: 'ready', cmpStatus: 'loaded' });
    const section = new GppModel(gpp.gppString);
    expect(section.getFieldValue('tcfeuv2', 'CmpId')).toBe(CMP_ID);
    expect(section.getFieldValue('tcfeuv2', 'VendorConsents')).toEqual(IN_V100);
    // The account's categories follow: every purpose consented turns them all on.
    await expect.poll(() => runs(p)).toEqual([1, 1]);
    expect((await consentOf(p))!.accepted.sort()).toEqual(['analytics', 'marketing', 'necessary']);
    // The AC string names the account's ATP ids, ascending, all consented (none left disclosed without consent).
    const acExpected = `2~${[...ATP_IDS].sort((a, b) => a - b).join('.')}~dv.`;
    await expect.poll(() => posted.length).toBe(1);
    expect(posted[0]).toMatchObject({ tc_string: tc, ac_string: acExpected, mode: 'opt-in' });
    const consent = await recorded(p);
    expect(consent.tc_string).toBe(tc);
    expect(consent.ac_string).toBe(acExpected);
    expect(await firstLayer(p).isVisible()).toBe(false);
    expect(errors).toEqual([]);

    // A second page reads the stored choice: no screen, the same string.
    const second = await v.open();
    await expect.poll(async () => (await ping(second.page)).cmpStatus).toBe('loaded');
    expect((await ping(second.page)).displayStatus).not.toBe('visible');
    expect((await tcfapi(second.page, 'getTCData')).data.tcString).toBe(tc);
    expect(await firstLayer(second.page).isVisible()).toBe(false);
    await expect.poll(() => runs(second.page)).toEqual([1, 1]);
    expect(second.errors).toEqual([]);
  });

  it('"Reject all": no purpose and no vendor consent, the optional categories off', async () => {
    const v = await visitor();
    const { page: p } = await v.open();
    const posted = sent(p);
    await firstLayer(p).getByRole('button', { name: en.reject_all }).click();
    const model = decode(await tcCookie(v.context));
    expect(ids(model.purposeConsents)).toEqual([]);
    expect(ids(model.vendorConsents)).toEqual([]);
    expect(ids(model.specialFeatureOptins)).toEqual([]);
    expect(ids(model.vendorsDisclosed)).toEqual(IN_V100);
    await expect.poll(() => posted.length).toBe(1);
    expect(posted[0].ac_string).toBe('2~~dv.89.1301');
    expect(decode(posted[0].tc_string).vendorConsents.size).toBe(0);
    expect((await recorded(p)).ac_string).toBe('2~~dv.89.1301');
    expect((await consentOf(p))!.accepted).toEqual(['necessary']);
    expect(await runs(p)).toEqual([0, 0]);
  });

  it('a custom choice on the second layer: purposes 1 and 7, one vendor, one objection, decoded as chosen', async () => {
    const v = await visitor();
    const { page: p } = await v.open();
    const posted = sent(p);
    await firstLayer(p).getByRole('button', { name: en.manage }).click();
    const layer = secondLayer(p);
    await layer.waitFor();
    await layer.getByRole('switch', { name: 'Store and/or access information on a device: Consent', exact: true }).check();
    await layer.getByRole('switch', { name: 'Measure advertising performance: Consent', exact: true }).check();
    await layer.getByRole('switch', { name: 'Example Ads GmbH: Consent', exact: true }).check();
    // The right to object: Testing Measurement BV's legitimate interest switched off.
    await layer.getByRole('switch', { name: 'Testing Measurement BV: Legitimate interest', exact: true }).uncheck();
    // The vendor's disclosures are there to read.
    const vendor = layer.locator('details', { hasText: 'Example Ads GmbH' });
    await vendor.locator('summary').click();
    const facts = await vendor.innerText();
    expect(facts).toContain('365 days');
    expect(facts).toContain('Measure advertising performance');
    expect(await vendor.getByRole('link', { name: 'Privacy policy' }).getAttribute('href')).toBe('https://example-ads.example/privacy');
    await layer.getByRole('button', { name: en.save }).click();
    const tc = await tcCookie(v.context);
    const model = decode(tc);
    expect(ids(model.purposeConsents)).toEqual([1, 7]);
    expect(ids(model.vendorConsents)).toEqual([1]);
    expect(ids(model.vendorLegitimateInterests)).not.toContain(10);
    expect(ids(model.vendorLegitimateInterests)).toContain(1);
    expect(Number(model.consentScreen)).toBe(2);
    // Purposes 1 and 7 alone turn on neither analytics (8, 9) nor marketing (2, 3, 4).
    expect((await consentOf(p))!.accepted).toEqual(['necessary']);
    await expect.poll(() => posted.length).toBe(1);
    expect(posted[0].tc_string).toBe(tc);
    expect((await recorded(p)).tc_string).toBe(tc);
    // Consentry.showPreferences() opens the second layer with the choice in force.
    await p.evaluate(() => window.Consentry!.showPreferences());
    await layer.waitFor();
    expect(await layer.getByRole('switch', { name: 'Measure advertising performance: Consent', exact: true }).isChecked()).toBe(true);
    expect(await layer.getByRole('switch', { name: 'Create profiles for personalised advertising: Consent', exact: true }).isChecked()).toBe(false);
  });

  it('a US visitor under opt-out rules: gdprApplies false, no TCF file, the banner of the mode', async () => {
    const v = await visitor();
    const { page: p, files, errors } = await v.open('US-CA');
    await expect.poll(async () => (await ping(p)).cmpStatus).toBe('loaded');
    expect(await ping(p)).toMatchObject({ gdprApplies: false, cmpId: CMP_ID });
    expect((await tcfapi(p, 'getTCData')).data).toMatchObject({ gdprApplies: false, tcString: undefined });
    await expect.poll(() => p.evaluate(() => (window as any).early)).toContainEqual(['event', 'tcloaded', false, true]);
    expect(files.some((f) => /\/widget\/tcf\./.test(f) || f.endsWith('/tcf-vendors.json'))).toBe(false);
    expect(await firstLayer(p).isVisible()).toBe(false);
    await expect.poll(() => runs(p)).toEqual([1, 1]);
    expect(errors).toEqual([]);
  });

  it('a vendor list refresh with a new vendor the account takes asks again', async () => {
    const v = await visitor();
    const { page: p } = await v.open();
    await firstLayer(p).getByRole('button', { name: en.accept_all }).click();
    const before = decode(await tcCookie(v.context));
    expect(ids(before.vendorConsents)).not.toContain(30);
    await p.close();

    // Version 101 lists vendor 30: the account does not use it yet, and the visitor is not asked again.
    await t.services.vendorLists.loadFile('test/fixtures/tcf/vendor-list-v2.json');
    t.services.bannerScripts.forget(tenant.account.id);
    const same = await v.open();
    await expect.poll(async () => (await ping(same.page)).gvlVersion).toBe(100);
    expect(await firstLayer(same.page).isVisible()).toBe(false);
    await same.page.close();

    // The account takes vendor 30: every visitor is asked again, about it too.
    const set = await patchTcf({ vendor_ids: [...IN_V100, 30] });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    t.services.bannerScripts.forget(tenant.account.id);
    const again = await v.open();
    await firstLayer(again.page).waitFor();
    expect(await again.page.getByText(`${IN_V100.length + 1} partners`).count()).toBeGreaterThan(0);
    await firstLayer(again.page).getByRole('button', { name: en.accept_all }).click();
    await expect.poll(async () => Number(decode(await tcCookie(v.context)).vendorListVersion)).toBe(101);
    const model = decode(await tcCookie(v.context));
    expect(ids(model.vendorConsents)).toEqual([...IN_V100, 30]);
    expect(ids(model.vendorsDisclosed)).toContain(30);
  });

  it('an account without TCF: no stub, and the same script before and after TCF was on', async () => {
    const get = () => t.app.inject({ method: 'GET', url: `/widget/${plain.account.id}.js` });
    const before = (await get()).body;
    expect(before).not.toContain('__tcfapi');
    expect(before).not.toContain('"tcf"');
    const on = await patchTcf({ enabled: true, cmp_id: CMP_ID, vendor_ids: [1], publisher_country_code: 'FR' }, plain);
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    t.services.bannerScripts.forget(plain.account.id);
    expect((await get()).body).toContain('__tcfapiLocator');
    const off = await patchTcf({ enabled: false }, plain);
    expect(off.status).toBe(200);
    t.services.bannerScripts.forget(plain.account.id);
    expect((await get()).body).toBe(before);
  });
});
