import { GppModel } from '@iabgpp/cmpapi';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { GppStart } from '../../../banner/src/gpp.ts';
import { call } from '../../helpers/app.ts';
import { bannerShop } from '../../helpers/banner-shop.ts';
import { RETRIED_UNDER_CI, describeBrowser, newVisitor, reportRetries } from '../../helpers/browser.ts';
import { buildGppPage } from '../../helpers/gpp-page-build.ts';

/**
 * `__gpp` in Chromium. A site on its own origin (http://localhost:PORT) loads from the real service
 * (http://127.0.0.1:PORT) either the banner script, whose visitors are all under opt-in today, or
 * a page that runs the banner's GPP code (test/helpers/gpp-page.ts) and starts it in the mode and
 * region a test asks for, as the banner's modes do. Every string is decoded here with the IAB's
 * own library. The embedded project only (vitest.config.ts): the API under the banner is tested
 * on both engines.
 */
describeBrowser('GPP: __gpp, its sections and the GPP file', RETRIED_UNDER_CI, () => {
  reportRetries();
  const { t, tenants: [tenant], browser, shop } = bannerShop(['Gpp browser'], (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const script = path === '/gpp-page.js';
    response.setHeader('content-type', script ? 'text/javascript' : 'text/html; charset=utf-8');
    response.end(script ? gppPage : path === '/ads' ? harnessPage() : bannerPage());
  });
  let gppFile: string;
  let gppPage: string;

  const bannerPage = () => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script src="${t.url}/widget/${tenant.account.id}.js"></script>
</head><body><main><h1>Shop</h1></main></body></html>`;

  // The page's ad script asks `__gpp` before anything is known: a listener, a section, a field, a ping.
  const harnessPage = () => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ads</title>
<script src="/gpp-page.js"></script>
<script>
  gppHarness.installGpp(${JSON.stringify(t.url)});
  window.events = [];
  __gpp('addEventListener', function (event) { events.push([event.eventName, event.data, event.pingData.signalStatus]); });
  window.early = {};
  __gpp('ping', function (data) { early.ping = data; });
  __gpp('hasSection', function (data, success) { early.hasSection = [data, success]; }, 'usnat');
  __gpp('getField', function (data, success) { early.saleOptOut = [data, success]; }, 'usnat.SaleOptOut');
</script>
</head><body><p>Ads</p></body></html>`;

  beforeAll(async () => {
    await t.services.db.updateTable('accounts').set({ allowed_domains: JSON.stringify(['localhost']) }).where('id', '=', tenant.account.id).execute();
    for (const [name, required] of [['Necessary', true], ['Marketing', false]] as const) {
      const res = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name, required } } });
      expect(res.status).toBe(201);
    }
    gppFile = (await t.services.bannerScripts.chunk('gpp')).name;
    gppPage = await buildGppPage(gppFile, tenant.account.id);
  });

  /** A new visitor on `path`, with every request to the GPP file counted. */
  async function visit(path: string, options: { gpc?: boolean; prepare?: (page: Page) => Promise<unknown> } = {}) {
    const { context, page, errors } = await newVisitor(browser, options);
    const gppRequests: string[] = [];
    page.on('request', (request) => {
      if (/\/widget\/gpp\.[^/]*\.js$/.test(new URL(request.url()).pathname)) gppRequests.push(request.url());
    });
    await options.prepare?.(page);
    await page.goto(`${shop.url}${path}`);
    return { context, page, errors, gppRequests };
  }

  const ping = (page: Page) => page.evaluate(() => new Promise<any>((resolve) => window.__gpp!('ping', resolve)));
  const ask = (page: Page, command: string, parameter?: string) =>
    page.evaluate(([command, parameter]) => new Promise<[unknown, boolean]>((resolve) => window.__gpp!(command, (data, success) => resolve([data, success]), parameter)), [command, parameter] as const);
  const start = (page: Page, signal: GppStart) => page.evaluate((signal) => window.gppHarness.startGpp(signal), signal);
  const cookie = async (context: BrowserContext, name: string) => (await context.cookies()).find((c) => c.name === name)?.value;
  const usVisitor = (region: string | null, more: Partial<GppStart> = {}): GppStart =>
    ({ mode: 'opt-out', country: 'US', region, gpc: false, optedOut: false, ...more });

  it('in an opt-in region (every visitor today): no US section, no GPP file, and frames are answered', async () => {
    const { context, page, errors, gppRequests } = await visit('/');
    await page.getByRole('button', { name: 'Accept all', exact: true }).waitFor();
    expect(await ping(page)).toMatchObject({
      gppVersion: '1.1', cmpStatus: 'loaded', cmpDisplayStatus: 'disabled', signalStatus: 'ready',
      applicableSections: [-1], sectionList: [], gppString: '',
    });
    expect(await ask(page, 'hasSection', 'usnat')).toEqual([false, true]);
    expect(await ask(page, 'getSection', 'usnat')).toEqual([null, true]);
    expect(await ask(page, 'getField', 'usnat.SaleOptOut')).toEqual([null, true]);
    // A script in a frame finds the page by its __gppLocator frame and asks by postMessage.
    expect(await page.locator('iframe[name="__gppLocator"]').count()).toBe(1);
    const framed = await page.evaluate(() => new Promise<any>((resolve) => {
      const frame = document.createElement('iframe');
      frame.srcdoc = `<script>
        var found = !!parent.frames.__gppLocator;
        addEventListener('message', function (e) { if (e.data.__gppReturn) parent.postMessage({ found: found, answer: e.data.__gppReturn }, '*'); });
        parent.postMessage({ __gppCall: { command: 'ping', version: '1.1', callId: 'c1' } }, '*');
      </script>`;
      addEventListener('message', (e) => { if (e.data.answer) resolve(e.data); });
      document.body.appendChild(frame);
    }));
    expect(framed).toMatchObject({ found: true, answer: { callId: 'c1', success: true, returnValue: { applicableSections: [-1], cmpStatus: 'loaded' } } });

    const posted = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/consents'));
    await page.getByRole('button', { name: 'Accept all', exact: true }).click();
    expect(JSON.parse((await posted).postData()!).consent).not.toHaveProperty('gpp_string');
    await page.reload();
    await page.waitForFunction(() => document.getElementsByName('__gppLocator').length === 1);
    expect(gppRequests).toEqual([]);
    expect(await cookie(context, '__gpp')).toBeUndefined();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('in an opt-out region: usnat and the state\'s own section, the queued calls answered, the string kept', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const { context, page, errors, gppRequests } = await visit('/ads', {
      // The GPP file arrives late: what the page asks meanwhile waits for it.
      prepare: (page) => page.route(/\/widget\/gpp\./, async (route) => { await held; await route.continue(); }),
    });
    expect(await page.evaluate(() => (window as any).early)).toEqual({ ping: expect.objectContaining({ cmpStatus: 'stub', signalStatus: 'not ready', applicableSections: [0] }) });
    await page.evaluate((signal) => { (window as any).started = window.gppHarness.startGpp(signal); }, usVisitor('US-CA'));
    await expect.poll(() => gppRequests.length).toBe(1);
    const whileLoading = page.evaluate(() => new Promise((resolve) => window.__gpp!('getSection', (data) => resolve(data), 'usca')));
    expect((await ping(page)).cmpStatus).toBe('stub');
    release();
    const gppString = await page.evaluate(() => (window as any).started as Promise<string>);
    expect(gppRequests).toEqual([`${t.url}/widget/${gppFile}`]);

    const model = new GppModel(gppString);
    expect(model.getSectionIds()).toEqual([7, 8]);
    expect(model.getSection('usnat')).toMatchObject({
      SharingNotice: 1, SaleOptOutNotice: 1, SharingOptOutNotice: 1, TargetedAdvertisingOptOutNotice: 1,
      SaleOptOut: 2, SharingOptOut: 2, TargetedAdvertisingOptOut: 2, MspaCoveredTransaction: 2, Gpc: false,
    });
    expect(model.getSection('usca')).toMatchObject({ SaleOptOutNotice: 1, SharingOptOutNotice: 1, SaleOptOut: 2, SharingOptOut: 2, Gpc: false });
    expect(await whileLoading).toMatchObject({ SaleOptOut: 2, SharingOptOut: 2 });
    expect(await page.evaluate(() => (window as any).early)).toMatchObject({ hasSection: [true, true], saleOptOut: [2, true] });
    expect(await ping(page)).toMatchObject({ gppVersion: '1.1', cmpStatus: 'loaded', signalStatus: 'ready', applicableSections: [7, 8], sectionList: [7, 8], gppString });
    expect(await page.evaluate(() => (window as any).events)).toEqual([
      ['listenerRegistered', true, 'not ready'],
      ['cmpStatus', 'loaded', 'not ready'],
      ['sectionChange', 'usnat', 'not ready'],
      ['sectionChange', 'usca', 'not ready'],
      ['signalStatus', 'ready', 'ready'],
    ]);
    expect(await cookie(context, '__gpp')).toBe(gppString);
    expect(await cookie(context, '__gpp_sid')).toBe('7,8');

    // The visitor opts out: "not ready", the sections change, "ready"; the new string is kept.
    await page.evaluate(() => { (window as any).events.length = 0; });
    const optedOut = await page.evaluate(() => window.gppHarness.updateGpp({ optedOut: true }));
    expect(await page.evaluate(() => window.gppHarness.gppString())).toBe(optedOut);
    const after = new GppModel(optedOut!);
    expect(after.getSection('usnat')).toMatchObject({ SaleOptOut: 1, SharingOptOut: 1, TargetedAdvertisingOptOut: 1, SaleOptOutNotice: 1, Gpc: false });
    expect(after.getSection('usca')).toMatchObject({ SaleOptOut: 1, SharingOptOut: 1 });
    expect(await page.evaluate(() => (window as any).events)).toEqual([
      ['signalStatus', 'not ready', 'not ready'],
      ['sectionChange', 'usnat', 'not ready'],
      ['sectionChange', 'usca', 'not ready'],
      ['signalStatus', 'ready', 'ready'],
    ]);
    expect(await ask(page, 'getField', 'usca.SaleOptOut')).toEqual([1, true]);
    expect(await cookie(context, '__gpp')).toBe(optedOut);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('honours Global Privacy Control as an opt-out (Gpc true), and a stored opt-out', async () => {
    const { context, page } = await visit('/ads', { gpc: true });
    const model = new GppModel(await start(page, usVisitor('US-CO', { gpc: true })));
    expect(model.getSectionIds()).toEqual([7, 10]);
    expect(model.getSection('usnat')).toMatchObject({ SaleOptOut: 1, SharingOptOut: 1, TargetedAdvertisingOptOut: 1, Gpc: true });
    expect(model.getSection('usco')).toMatchObject({ SaleOptOutNotice: 1, SaleOptOut: 1, TargetedAdvertisingOptOut: 1, Gpc: true });
    await context.close();

    const returning = await visit('/ads');
    const stored = new GppModel(await start(returning.page, usVisitor('US-TX', { optedOut: true })));
    expect(stored.getSectionIds()).toEqual([7, 16]);
    expect(stored.getSection('ustx')).toMatchObject({ SaleOptOut: 1, TargetedAdvertisingOptOut: 1, Gpc: false });
    await returning.context.close();
  });

  it('gives usnat alone in a state without its own section, or when the state is not known', async () => {
    for (const region of ['US-VT', null]) {
      const { context, page } = await visit('/ads');
      const model = new GppModel(await start(page, usVisitor(region, { country: region ? null : 'US' })));
      expect(model.getSectionIds()).toEqual([7]);
      expect(model.getSection('usnat')).toMatchObject({ SaleOptOut: 2, SharingOptOut: 2, TargetedAdvertisingOptOut: 2 });
      expect((await ping(page)).applicableSections).toEqual([7]);
      expect(await cookie(context, '__gpp_sid')).toBe('7');
      await context.close();
    }
  });

  it('loads no GPP file for notice, none and opt-in regions, nor for an opt-out rule outside the US', async () => {
    const { context, page, gppRequests } = await visit('/ads');
    // A string kept on an earlier visit from an opt-out region speaks no more.
    await context.addCookies([{ name: '__gpp', value: 'DBABLA~BVQqAAAAAgA.QA', url: shop.url }, { name: '__gpp_sid', value: '7', url: shop.url }]);
    expect(await start(page, { mode: 'notice', country: 'US', region: 'US-CA', gpc: false, optedOut: false })).toBeNull();
    expect(await ping(page)).toMatchObject({ cmpStatus: 'loaded', signalStatus: 'ready', applicableSections: [-1] });
    expect(await page.evaluate(() => (window as any).early)).toMatchObject({ hasSection: [false, true], saleOptOut: [null, true] });
    expect(await page.evaluate(() => (window as any).events)).toEqual([
      ['listenerRegistered', true, 'not ready'], ['cmpStatus', 'loaded', 'ready'], ['signalStatus', 'ready', 'ready'],
    ]);
    expect(await cookie(context, '__gpp')).toBeUndefined();
    expect(await cookie(context, '__gpp_sid')).toBeUndefined();
    expect(gppRequests).toEqual([]);
    await context.close();
    for (const signal of [
      { mode: 'none', country: null, region: null },
      { mode: 'opt-in', country: 'DE', region: null },
      { mode: 'opt-out', country: 'BR', region: 'BR-SP' },
    ] as const) {
      const other = await visit('/ads');
      expect(await start(other.page, { ...signal, gpc: false, optedOut: false })).toBeNull();
      expect((await ping(other.page)).applicableSections).toEqual([-1]);
      expect(other.gppRequests).toEqual([]);
      await other.context.close();
    }
  });

  it('gives no signal, and records without a string, when the GPP file cannot be loaded', async () => {
    const { context, page } = await visit('/ads', { prepare: (page) => page.route(/\/widget\/gpp\./, (route) => route.abort()) });
    const warnings: string[] = [];
    page.on('console', (message) => { if (message.type() === 'warning') warnings.push(message.text()); });
    expect(await start(page, usVisitor('US-CA'))).toBeNull();
    expect(await ping(page)).toMatchObject({ cmpStatus: 'stub', signalStatus: 'not ready' });
    expect(warnings.some((warning) => warning.includes(gppFile))).toBe(true);
    await context.close();
  });
});
