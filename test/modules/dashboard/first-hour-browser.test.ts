/**
 * A website owner's first hour, in the dashboard alone: from signing up with no account to a
 * correct, categorised and published banner on a small local site (a bakery's three pages), through
 * the scan, the AI's classification, "Approve all shown" and publishing the AI's categories. The
 * API is read only to check what the pages did. This file runs in the embedded project only
 * (vitest.config.ts): the API under it is tested on both engines.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { RETRIED_UNDER_CI, describeBrowser, fileBrowser, reportRetries } from '../../helpers/browser.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { fileSite } from '../../helpers/loopback-site.ts';
import { inspect, settled, WIDTHS } from '../../helpers/dashboard.ts';
import { PASSWORD } from '../../helpers/tenants.ts';
import { dashboardBuilt } from '../../helpers/web-build.ts';

const describeHere = dashboardBuilt() ? describeBrowser : describe.skip;

const { t } = fileApp({
  listen: true,
  env: {
    RATE_LIMIT_MAX: '100000', AUTH_RATE_LIMIT_PER_MIN: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000',
    SCAN_ALLOW_PRIVATE_NETWORKS: 'true', SCAN_PAGE_TIMEOUT_MS: '10000',
  },
});
const browser = fileBrowser();
const bakery = fileSite((request, response) => {
  const path = new URL(request.url ?? '/', 'http://bakery').pathname;
  const title = ({ '/': 'Crumb & Co', '/bread': 'Our bread', '/visit': 'Visit us' } as Record<string, string>)[path];
  if (!title) {
    response.statusCode = 404;
    return response.end();
  }
  response.setHeader('set-cookie', 'PHPSESSID=3f2a9c; Path=/; HttpOnly; SameSite=Lax');
  response.setHeader('content-type', 'text/html; charset=utf-8');
  response.end(bakeryPage(title));
});
/** The bakery's address: the scanner reaches it by IP, as the account's domain says. */
const bakeryUrl = () => `http://127.0.0.1:${bakery.port}`;
/** What the owner pasted into every page of the site: the dashboard's install snippet. */
let snippet = '';

/**
 * The bakery's site: a session cookie from the server, Google Analytics' and Meta's cookies from its
 * scripts, on three linked pages; each page carries the install snippet once the owner has it.
 */
function bakeryPage(title: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · Crumb & Co</title>${snippet}
<script>
  document.cookie = '_ga=GA1.1.1234567890.1700000000; Path=/; Max-Age=${2 * 365 * 86_400}; SameSite=Lax';
  document.cookie = '_gid=GA1.1.987654321.1700000000; Path=/; Max-Age=86400; SameSite=Lax';
  document.cookie = '_fbp=fb.1.1700000000000.123; Path=/; Max-Age=${90 * 86_400}; SameSite=Lax';
</script></head>
<body><h1>${title}</h1><nav><a href="/">Home</a> <a href="/bread">Our bread</a> <a href="/visit">Visit us</a></nav></body></html>`;
}


const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Account pages' }).getByRole('link', { name, exact: true });

async function open(page: Page, name: string): Promise<void> {
  await nav(page, name).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  await settled(page);
}

describeHere("a website owner's first hour", RETRIED_UNDER_CI, () => {
  reportRetries();
  it('goes from signing up to a categorised, published banner on their site without leaving the dashboard', async () => {
    const context = await browser.newContext({ viewport: WIDTHS.desktop, baseURL: t.url });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();

    // Sign up, then the first account, for the site's address.
    await page.goto('/sign-up');
    await settled(page);
    const signUp = page.getByRole('form', { name: 'Sign up' });
    const email = `baker-${Date.now()}@example.test`;
    await signUp.getByLabel('Your name').fill('Bea Baker');
    await signUp.getByLabel('Email').fill(email);
    await signUp.getByLabel('Password').fill(PASSWORD);
    await signUp.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(`${t.url}/accounts`);
    await settled(page);
    const newAccount = page.getByRole('form', { name: 'New account' });
    await newAccount.getByLabel('Name').fill('Crumb & Co');
    await newAccount.getByLabel('Website domain').fill('127.0.0.1');
    await newAccount.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Crumb & Co' }).waitFor();
    await settled(page);
    const accountId = new URL(page.url()).pathname.split('/')[2];
    const token = await page.evaluate(() => localStorage.getItem('consentry.token'));
    const api = (path: string, query?: Record<string, string>) => call(t.app, 'GET', path, { token: token!, query: { account_id: accountId, ...query } });

    // The owner pastes the install snippet into the site.
    snippet = (await page.locator('#install-snippet').textContent())!;
    expect(snippet).toBe(`<script src="${t.url}/widget/${accountId}.js"></script>`);
    // A page of the site loads it: the script is installed, but no cookie is described yet, and the
    // checklist says both as they are.
    const sitePage = await context.newPage();
    await sitePage.goto(bakeryUrl());
    await expect.poll(async () => (await api(`/api/v1/accounts/${accountId}`)).body.onboarding_status).toBe('code_installed');
    await sitePage.close();
    await page.reload();
    await settled(page);
    const steps = page.locator('ol.steps li');
    await expect.poll(() => steps.allTextContents()).toEqual([
      'Account created (done)', 'Cookies described (to do)', 'Script installed (done)', 'Live (10 visitors in 30 days) (to do)',
    ]);

    // Scan the site.
    await open(page, 'Scans');
    const scanForm = page.getByRole('form', { name: 'New scan' });
    await scanForm.getByLabel('Starting page').fill(`${bakeryUrl()}/`);
    await scanForm.getByLabel('Pages at most').fill('10');
    await scanForm.getByRole('button', { name: 'Start scan' }).click();
    await page.getByRole('table', { name: 'Scans' }).getByRole('cell', { name: 'Done', exact: true }).waitFor({ timeout: 120_000 });

    // The storage items: what the scan found, sorted by the AI (on for a new account); "Classify" takes what it left.
    await open(page, 'Storage items');
    const processing = () => page.locator('tbody .status-processing').count();
    await expect.poll(processing, { timeout: 30_000 }).toBe(0);
    await page.getByRole('button', { name: 'Classify all uncategorised' }).click();
    await page.getByRole('status').filter({ hasText: /classify/ }).waitFor();
    await expect.poll(processing, { timeout: 30_000 }).toBe(0);
    const found = (await api('/api/v1/storage-items', { limit: '100' })).body.data as Array<{ id: string; name: string; category_id: string | null; status: string }>;
    const names = found.map((item) => item.name);
    expect(names).toEqual(expect.arrayContaining(['PHPSESSID', '_ga', '_gid', '_fbp']));
    expect(found.filter((item) => item.category_id === null).map((item) => item.name), 'left without a category').toEqual([]);
    // The AI's categories are drafts: the page says the items will not reach the banner yet.
    await page.locator('.note.warning').first().waitFor();

    // Approve the AI's categorisation of every item, after the confirmation.
    await open(page, 'AI suggestions');
    await page.getByLabel('Kind').selectOption({ label: 'Category' });
    const approveAll = page.getByRole('button', { name: `Approve all shown (${found.length})` });
    page.once('dialog', (dialog) => void dialog.accept());
    await approveAll.click();
    await page.getByRole('status').filter({ hasText: `${found.length} items approved.` }).waitFor();

    // Publish the categories the AI created.
    await open(page, 'Categories');
    const publish = page.getByRole('button', { name: /^Publish / });
    expect(await publish.count()).toBeGreaterThan(0);
    while (await publish.count() > 0) {
      const name = (await publish.first().getAttribute('aria-label'))!.slice('Publish '.length);
      await publish.first().click();
      await page.getByRole('status').filter({ hasText: `${name} is published` }).waitFor();
      // The list drawn again without its button, before the next count reads it.
      await page.getByRole('button', { name: `Publish ${name}`, exact: true }).waitFor({ state: 'detached' });
    }
    expect(await page.getByText('Draft', { exact: true }).count()).toBe(0);
    await inspect(page, 'first-hour-categories');
    await context.close();

    // What the banner now holds: every item found, finalised by the owner, in its published category.
    const categories = new Map(((await api('/api/v1/categories', { limit: '100' })).body.data as Array<{ id: string; slug: string; name: string; published: boolean; required: boolean }>)
      .map((category) => [category.id, category]));
    const items = (await api('/api/v1/storage-items', { limit: '100' })).body.data as Array<{ name: string; category_id: string; status: string; approved_by_type: string }>;
    const slugOf = (name: string) => categories.get(items.find((item) => item.name === name)!.category_id)!.slug;
    expect(['_ga', '_gid', '_fbp', 'PHPSESSID'].map(slugOf)).toEqual(['analytics', 'analytics', 'marketing', 'necessary']);
    expect(items.every((item) => item.status === 'finalised' && item.approved_by_type === 'User')).toBe(true);
    expect([...categories.values()].every((category) => category.published)).toBe(true);
    const config = (await call(t.app, 'GET', `/widget/${accountId}/config.json`, { headers: { origin: bakeryUrl() } })).body;
    for (const item of items) expect(JSON.stringify(config)).toContain(`"${item.name}"`);

    // A visitor of the site sees the banner, with the categories and their cookies, and is asked before anything optional.
    const visitor = await browser.newContext();
    visitor.setDefaultTimeout(15_000);
    const site = await visitor.newPage();
    await site.goto(`${bakeryUrl()}/bread`);
    await site.getByRole('button', { name: 'Accept all', exact: true }).waitFor();
    await site.getByRole('button', { name: 'Manage preferences', exact: true }).click();
    const analytics = [...categories.values()].find((category) => category.slug === 'analytics')!;
    const marketing = [...categories.values()].find((category) => category.slug === 'marketing')!;
    const necessary = [...categories.values()].find((category) => category.slug === 'necessary')!;
    for (const category of [analytics, marketing]) expect(await site.getByRole('checkbox', { name: category.name }).isChecked()).toBe(false);
    expect(await site.getByRole('checkbox', { name: necessary.name }).isDisabled()).toBe(necessary.required);
    for (const name of ['_ga', '_gid', '_fbp', 'PHPSESSID']) expect(await site.locator('#cc-main .pm td', { hasText: name }).count()).toBeGreaterThan(0);
    await visitor.close();
  }, 300_000);
});
