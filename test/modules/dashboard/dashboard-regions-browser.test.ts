/**
 * The dashboard's regional parts in a real Chromium against the real server: the statistics by
 * country and by mode, and the consent log's place and mode. The pages do not depend on the
 * database engine; this file runs in the embedded project only (vitest.config.ts).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startApp, type TestApp } from '../../helpers/app.ts';
import { describeBrowser, launchBrowser } from '../../helpers/browser.ts';
import { freePort, inspect, settled } from '../../helpers/dashboard.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';
import { dashboardBuilt } from '../../helpers/web-build.ts';

const describeHere = dashboardBuilt() ? describeBrowser : describe.skip;

let t: TestApp;
let browser: Browser;
let base: string;
let tenant: Tenant;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await startApp({ env: { PUBLIC_URL: base, RATE_LIMIT_MAX: '100000', AUTH_RATE_LIMIT_PER_MIN: '100000' } });
  await t.app.listen({ port, host: '127.0.0.1' });
  tenant = await createTenant(t.services, 'Regions');
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A page of the dashboard (`account` + a path: one of the account's), signed in with `token`. */
async function open(path: string, token = tenant.tokens.account): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: base });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByRole('button', { name: 'API token' }).click();
  await page.getByRole('textbox', { name: 'API token' }).fill(token);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await page.waitForURL(/\/(accounts|partner)/);
  await page.goto(path);
  await settled(page);
  return { page, close: () => context.close() };
}

const account = () => `/accounts/${tenant.account.id}`;
const api = (method: string, url: string, body?: unknown, token = tenant.tokens.account) => call(t.app, method, url, { token, body });

/** A share as the dashboard writes it. */
const percent = (share: number | null) => (share === null ? '—' : `${Math.round(share * 1000) / 10}%`);

interface Entry {
  value: string | null; consents: number; accept_all_rate: number | null; reject_all_rate: number | null;
  custom_rate: number | null; opt_out_rate: number | null; gpc_share: number | null;
}

/** A breakdown row's cells as the API's figures say they should read. */
const cellsOf = (entry: Entry, total: number) => [
  String(entry.consents), percent(entry.consents / total), percent(entry.accept_all_rate), percent(entry.reject_all_rate),
  percent(entry.custom_rate), percent(entry.opt_out_rate), percent(entry.gpc_share),
];

/** The rows of the breakdown table on the page: each row's heading, then its cells. */
async function breakdownRows(page: Page, name: string): Promise<string[][]> {
  const table = page.getByRole('region', { name });
  await table.waitFor();
  return table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent ?? '')));
}

describeHere('regions in the dashboard', () => {
  let marketing: string;

  beforeAll(async () => {
    marketing = (await api('POST', '/api/v1/categories', { category: { name: 'Marketing' } })).body.data.id;
    const consents = [
      { country: 'DE', mode: 'opt-in', accept_type: 'all' },
      { country: 'DE', mode: 'opt-in', accept_type: 'all', gpc: true },
      { country: 'DE', mode: 'opt-in', accept_type: 'necessary', rejected_categories: [marketing] },
      { country: 'US', region: 'US-CA', mode: 'opt-out', accept_type: 'custom', rejected_categories: [marketing], gpc: true },
      { country: 'BR', mode: 'notice', accept_type: 'all' },
      { accept_type: 'all' },
    ];
    for (const [i, c] of consents.entries()) {
      const { country, region, mode, gpc, ...user_preferences } = c;
      const res = await call(t.app, 'POST', '/api/v1/consents', {
        token: tenant.tokens.account, headers: gpc ? { 'sec-gpc': '1' } : {},
        body: { consent: { session_id: `regional-${i}`, user_preferences, ...(country && { country }), ...(region && { region }), ...(mode && { mode }) } },
      });
      expect(res.status).toBe(201);
    }
  });

  it('breaks the statistics down by country and by mode, with the API\'s figures and readable names', async () => {
    const byCountry = (await api('GET', '/api/v1/stats?by=country')).body;
    const byMode = (await api('GET', '/api/v1/stats?by=mode')).body;
    expect(byCountry.totals.consents).toBe(6);
    const { page, close } = await open(account());
    // Country first, the default: every country by its name with its code, the unknown as such.
    const rows = await breakdownRows(page, 'Consents by country');
    const label = (value: string | null) => ({ DE: 'Germany (DE)', US: 'United States (US)', BR: 'Brazil (BR)' }[value ?? ''] ?? 'Unknown location');
    expect(rows).toEqual(byCountry.breakdown.map((e: Entry) => [label(e.value), ...cellsOf(e, 6)]));
    // The figures themselves, worked out from the consents above.
    expect(rows[0]).toEqual(['Germany (DE)', '3', '50%', '66.7%', '33.3%', '0%', '0%', '33.3%']);
    expect(rows.find((row) => row[0] === 'United States (US)')).toEqual(['United States (US)', '1', '16.7%', '0%', '0%', '100%', '100%', '100%']);
    expect(rows.find((row) => row[0] === 'Unknown location')?.[1]).toBe('1');
    const attribution = page.getByRole('link', { name: 'IP Geolocation by DB-IP' });
    expect(await attribution.getAttribute('href')).toBe('https://db-ip.com');

    await page.getByRole('group', { name: 'Statistics period' }).getByLabel('Broken down by').selectOption('mode');
    await page.getByRole('region', { name: 'Consents by banner mode' }).waitFor();
    const modes = await breakdownRows(page, 'Consents by banner mode');
    const modeLabel = (value: string | null) => ({ 'opt-in': 'Opt-in', 'opt-out': 'Opt-out', notice: 'Notice' }[value ?? ''] ?? 'Not recorded (consents before modes were kept)');
    expect(modes).toEqual(byMode.breakdown.map((e: Entry) => [modeLabel(e.value), ...cellsOf(e, 6)]));
    expect(new Set(modes.map((row) => row[0]))).toEqual(new Set(['Opt-in', 'Opt-out', 'Notice', 'Not recorded (consents before modes were kept)']));
    // No location is shown by mode, so no attribution either.
    expect(await attribution.count()).toBe(0);
    await inspect(page, 'overview-by-mode');
    await close();
  });

  it('breaks a group\'s statistics down by country for its partner', async () => {
    const groupStats = (await api('GET', `/api/v1/groups/${tenant.group.id}/stats?by=country`, undefined, tenant.tokens.partner)).body;
    const { page, close } = await open(`/partner/groups/${tenant.group.id}`, tenant.tokens.partner);
    const rows = await breakdownRows(page, 'Consents by country');
    expect(rows.map((row) => row[1])).toEqual(groupStats.breakdown.map((e: Entry) => String(e.consents)));
    expect(rows[0][0]).toBe('Germany (DE)');
    await close();
  });

  it('shows where each consent was given and under which mode, in the log and in the consent', async () => {
    const { page, close } = await open(`${account()}/consents`);
    const row = page.getByRole('row').filter({ hasText: 'regional-3' });
    await row.waitFor();
    expect(await row.locator('td').allTextContents()).toEqual(expect.arrayContaining(['United States (US-CA)', 'Opt-out']));
    const unknown = page.getByRole('row').filter({ hasText: 'regional-5' });
    expect(await unknown.locator('td').allTextContents()).toEqual(expect.arrayContaining(['Unknown', 'Not recorded']));
    await inspect(page, 'consents-regional');
    await row.getByRole('link').click();
    await settled(page);
    const details = page.locator('dl.details').first();
    const value = (term: string) => details.locator(`dt:text-is("${term}") + dd`).textContent();
    expect(await value('Country')).toBe('United States (US)');
    expect(await value('Region')).toBe('US-CA');
    expect(await value('Banner mode')).toBe('Opt-out');
    expect(await value('GPP string')).toBe('None');
    await page.getByRole('link', { name: 'IP Geolocation by DB-IP' }).waitFor();
    await close();
  });
});
