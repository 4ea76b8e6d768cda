/**
 * The dashboard's regional parts in a real Chromium against the real server: the statistics by
 * country and by mode, the consent log's place and mode, the banner editor's regional rules and its
 * preview as a visitor of a region, and the categories' sale/sharing switch. The pages do not depend
 * on the database engine; this file runs in the embedded project only (vitest.config.ts).
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { RETRIED_UNDER_CI, describeBrowser, fileBrowser, reportRetries } from '../../helpers/browser.ts';
import { inspect, settled } from '../../helpers/dashboard.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { settledPageviewsOf } from '../../helpers/records.ts';
import { dashboardBuilt } from '../../helpers/web-build.ts';

const describeHere = dashboardBuilt() ? describeBrowser : describe.skip;

const { t, tenants: [tenant] } = fileApp({ listen: true, env: { RATE_LIMIT_MAX: '100000', AUTH_RATE_LIMIT_PER_MIN: '100000' }, tenants: ['Regions'] });
const browser = fileBrowser();

/** A page of the dashboard (`account` + a path: one of the account's), signed in with `token`. */
async function open(path: string, token = tenant.tokens.account): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: t.url });
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

describeHere('regions in the dashboard', RETRIED_UNDER_CI, () => {
  reportRetries();
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

  it('edits the regional rules as an ordered list, says the API\'s problems beside them, saves, and restores the defaults', async () => {
    const banner = async () => (await api('GET', '/api/v1/banner')).body.data;
    const shipped = await banner();
    expect(shipped.regional_rules_customised).toBe(false);
    const { page, close } = await open(`${account()}/banner`);
    const regions = page.getByRole('group', { name: 'Regions' });
    const rule = (n: number) => regions.getByLabel(`Regions of rule ${n}`, { exact: true });
    const mode = (n: number) => regions.getByLabel(`Mode of rule ${n}`, { exact: true });
    const rules = () => regions.locator('.rule input').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
    await regions.getByText('This is not legal advice.').waitFor();
    await regions.getByText(/^The shipped defaults apply: /).waitFor();
    expect(await rules()).toEqual(shipped.regional_rules.map((r: { regions: string[] }) => r.regions.join(', ')));
    expect(await mode(2).inputValue()).toBe('opt-out');

    // A code that is none is said beside the rules as it is typed (the preview's check), and again when saving.
    await regions.getByRole('button', { name: 'Add a rule' }).click();
    await rule(3).fill('BR, UK');
    await mode(3).selectOption('notice');
    const problems = regions.locator('#regions-problems');
    await problems.getByText('Regional rules has an unknown region code: UK (did you mean GB?)').waitFor();
    expect(await rule(3).getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: 'Save banner' }).click();
    await page.getByText('The banner was not saved: see the problems under Regions.').waitFor();
    expect(await problems.textContent()).toBe('Regional rules has an unknown region code: UK (did you mean GB?)');
    expect((await banner()).regional_rules_customised).toBe(false);

    // Put right, moved up above the US rule, with a default mode and a Consent Mode option.
    await rule(3).fill('BR');
    await expect.poll(() => problems.count()).toBe(0);
    await regions.getByRole('button', { name: 'Move rule 3 up' }).click();
    expect(await rules()).toEqual(['EEA, GB, CH', 'BR', 'US-PRIVACY-STATES']);
    expect(await mode(2).inputValue()).toBe('notice');
    await regions.getByLabel('Default mode').selectOption('none');
    await regions.getByLabel(/url_passthrough/).check();
    await page.getByRole('button', { name: 'Save banner' }).click();
    await page.getByText('The banner was saved').waitFor();
    expect(await banner()).toMatchObject({
      regional_rules: [{ regions: ['EEA', 'GB', 'CH'], mode: 'opt-in' }, { regions: ['BR'], mode: 'notice' }, { regions: ['US-PRIVACY-STATES'], mode: 'opt-out' }],
      default_mode: 'none', regional_rules_customised: true, consent_mode: { ads_data_redaction: false, url_passthrough: true },
    });
    await page.reload();
    await settled(page);
    expect(await rules()).toEqual(['EEA, GB, CH', 'BR', 'US-PRIVACY-STATES']);
    expect(await regions.getByText(/^The shipped defaults apply/).count()).toBe(0);
    await inspect(page, 'banner-regions');
    // Removing a rule, then moving the last one down is not offered.
    await regions.getByRole('button', { name: 'Remove rule 2' }).click();
    expect(await rules()).toEqual(['EEA, GB, CH', 'US-PRIVACY-STATES']);
    expect(await regions.getByRole('button', { name: 'Move rule 2 down' }).isDisabled()).toBe(true);
    // The preview shows the banner with the rules as edited.
    await page.frameLocator('iframe[title="Banner preview"]').getByRole('button', { name: 'Accept all' }).first().waitFor();

    // Back to the shipped defaults: rules and default mode, saved at once.
    page.once('dialog', (dialog) => void dialog.accept());
    await regions.getByRole('button', { name: 'Restore the defaults' }).click();
    await page.getByText('The shipped regional rules and default mode were restored.').waitFor();
    const restored = await banner();
    expect(restored).toMatchObject({ regional_rules: shipped.regional_rules, default_mode: 'opt-in', regional_rules_customised: false });
    expect(restored.consent_mode.url_passthrough).toBe(true);
    await regions.getByText(/^The shipped defaults apply: /).waitFor();
    expect(await rules()).toEqual(shipped.regional_rules.map((r: { regions: string[] }) => r.regions.join(', ')));
    await api('PATCH', '/api/v1/banner', { banner: { consent_mode: null } });
    await close();
  });

  it('previews the banner as a visitor of a chosen region, recording no consent and counting no page view', async () => {
    const { page, close } = await open(`${account()}/banner`);
    const preview = page.frameLocator('iframe[title="Banner preview"]');
    await preview.getByRole('button', { name: 'Accept all' }).first().waitFor();
    // Nothing the preview's banner does reaches the service: no request, no consent, no page view.
    // (The banner may ask for a file, GPP's in opt-out regions: the frame's policy stops it before the network.)
    const reached: string[] = [];
    page.on('response', (response) => { if (response.frame() !== page.mainFrame()) reached.push(response.url()); });
    const consents = async () => (await api('GET', '/api/v1/consents')).body.pagination.count;
    const before = { consents: await consents(), pageviews: await settledPageviewsOf(t.services, tenant.account.id) };

    const place = page.getByLabel('Preview as a visitor in');
    const says = page.locator('#preview-region-says');
    expect(await place.inputValue()).toBe('DE');
    expect(await says.textContent()).toBe('Germany (DE): Opt-in: ask first (rule 1)');
    expect(await preview.locator('script[data-region="DE"]').count()).toBe(1);
    await place.fill('US-CA');
    await says.getByText('United States (US-CA): Opt-out', { exact: false }).waitFor();
    expect(await says.textContent()).toMatch(/\(rule 2\)$/);
    await preview.locator('script[data-region="US-CA"]').waitFor({ state: 'attached' });
    // As a Californian sees it: no dialog to answer, the opt-out link instead.
    await preview.getByText('Do Not Sell or Share My Personal Information').first().waitFor();
    expect(await preview.getByRole('button', { name: 'Accept all' }).count()).toBe(0);
    // Opting out there is recorded nowhere either (checked below with the choice made as a German visitor).
    await preview.getByRole('button', { name: 'Do Not Sell or Share My Personal Information' }).first().click();
    await place.fill('JP');
    await says.getByText('(the default mode)', { exact: false }).waitFor();
    await preview.locator('script[data-region="JP"]').waitFor({ state: 'attached' });
    await place.fill('XYZ');
    await says.getByText('Type a country (DE) or a US state (US-CA).').waitFor();
    expect(await page.getByRole('link', { name: 'IP Geolocation by DB-IP' }).count()).toBe(1);

    await place.fill('DE');
    await preview.locator('script[data-region="DE"]').waitFor({ state: 'attached' });
    await preview.getByRole('button', { name: 'Accept all' }).first().click();
    await expect(preview.getByRole('button', { name: 'Accept all' }).first().waitFor({ state: 'hidden', timeout: 5000 })).resolves.toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await consents()).toBe(before.consents);
    expect(await settledPageviewsOf(t.services, tenant.account.id)).toBe(before.pageviews);
    expect(reached.filter((url) => !url.includes('/banner-preview.html'))).toEqual([]);
    await close();
  });

  it('takes a choice made with the keyboard in the banner editor\'s selects, whose changes re-render the page', async () => {
    const { page, close } = await open(`${account()}/banner`);
    // The browser's own events (not a script's): an input event, then a change event, each in its own turn.
    const language = page.getByLabel('Language of the texts');
    const before = await language.inputValue();
    const placeholderBefore = await page.getByLabel('Title', { exact: true }).getAttribute('placeholder');
    await language.focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => language.inputValue()).not.toBe(before);
    // The texts shown are that language's: its built-in title is the empty field's placeholder.
    await expect.poll(() => page.getByLabel('Title', { exact: true }).getAttribute('placeholder')).not.toBe(placeholderBefore);
    const defaultMode = page.getByLabel('Default mode');
    await defaultMode.focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => defaultMode.inputValue()).toBe('opt-out');
    const passthrough = page.getByLabel(/url_passthrough/);
    await passthrough.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => passthrough.isChecked()).toBe(true);
    await close();
  });

  it('edits the texts of opt-out and notice regions with the others, in each language', async () => {
    const { page, close } = await open(`${account()}/banner`);
    await page.getByText('More texts').click();
    const link = page.getByLabel('Opt-out regions: "Do Not Sell or Share" link');
    expect(await link.getAttribute('placeholder')).toBe('Do Not Sell or Share My Personal Information');
    await link.fill('Do not sell my data');
    await page.getByLabel('Notice regions: button closing the notice').fill('Fine');
    await page.getByLabel('Language of the texts').selectOption('de');
    await page.getByText('More texts').click();
    expect(await page.getByLabel('Opt-out regions: "Do Not Sell or Share" link').getAttribute('placeholder'))
      .toBe('Meine personenbezogenen Daten nicht verkaufen oder weitergeben');
    await page.getByLabel('Opt-out regions: "Do Not Sell or Share" link').fill('Nicht verkaufen');
    await page.getByRole('button', { name: 'Save banner' }).click();
    await page.getByText('The banner was saved').waitFor();
    const { translations } = (await api('GET', '/api/v1/banner')).body.data;
    expect(translations.en).toMatchObject({ do_not_sell: 'Do not sell my data', dismiss: 'Fine' });
    expect(translations.de).toMatchObject({ do_not_sell: 'Nicht verkaufen' });
    await api('PATCH', '/api/v1/banner', { banner: { translations: { en: { do_not_sell: null, dismiss: null }, de: null } } });
    await close();
  });

  it('switches a category\'s sale or sharing, on by itself for marketing', async () => {
    const analytics = (await api('POST', '/api/v1/categories', { category: { name: 'Analytics' } })).body.data;
    expect(analytics.sale_or_sharing).toBe(false);
    const { page, close } = await open(`${account()}/categories`);
    const form = page.getByRole('form', { name: 'New category' });
    const sale = form.getByRole('switch', { name: /^Sale or sharing: opting out of sale\/sharing switches this off/ });
    expect(await sale.isChecked()).toBe(false);
    await form.getByLabel('Name', { exact: true }).fill('Marketing');
    expect(await sale.isChecked()).toBe(true);
    await form.getByLabel('Slug').fill('ads');
    expect(await sale.isChecked()).toBe(false);
    await sale.check();
    await form.getByRole('button', { name: 'Add category' }).click();
    await page.getByRole('row').filter({ hasText: 'ads' }).waitFor();
    const list = (await api('GET', '/api/v1/categories?limit=100')).body.data as { slug: string; sale_or_sharing: boolean; id: string }[];
    expect(list.find((c) => c.slug === 'ads')?.sale_or_sharing).toBe(true);

    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Analytics', exact: true }) });
    expect(await row.locator('td').nth(3).textContent()).toBe('No');
    await row.getByRole('button', { name: 'Edit Analytics' }).click();
    const edit = page.getByRole('form', { name: 'Edit Analytics' });
    await edit.getByRole('switch').check();
    await edit.getByRole('button', { name: 'Save category' }).click();
    await expect.poll(async () => (await api('GET', `/api/v1/categories/${analytics.id}`)).body.data.sale_or_sharing).toBe(true);
    await row.locator('td').nth(3).getByText('Yes').waitFor();
    await inspect(page, 'categories-sale-or-sharing');
    await close();
  });
});
