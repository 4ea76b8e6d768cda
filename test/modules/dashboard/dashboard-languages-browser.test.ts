/**
 * The dashboard's language settings in a real Chromium against the real server: the banner editor
 * says which language a visitor sees, and the categories, storage items and services take their
 * texts in each other language the banner speaks. The pages do not depend on the database engine;
 * this file runs in the embedded project only (vitest.config.ts).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { describeBrowser, fileBrowser } from '../../helpers/browser.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { inspect, settled } from '../../helpers/dashboard.ts';
import { dashboardBuilt } from '../../helpers/web-build.ts';

const describeHere = dashboardBuilt() ? describeBrowser : describe.skip;

const { t, tenants: [tenant] } = fileApp({ listen: true, env: { RATE_LIMIT_MAX: '100000', AUTH_RATE_LIMIT_PER_MIN: '100000' }, tenants: ['Languages'] });
const browser = fileBrowser();

/** The account's page at `path`, signed in with the account token (kept in the session as the dashboard keeps it). */
async function open(path: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: t.url });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByRole('button', { name: 'API token' }).click();
  await page.getByRole('textbox', { name: 'API token' }).fill(tenant.tokens.account);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await page.waitForURL(/\/accounts\//);
  await page.goto(`/accounts/${tenant.account.id}${path}`);
  await settled(page);
  return { page, close: () => context.close() };
}

const api = (method: string, url: string, body?: unknown) => call(t.app, method, url, { token: tenant.tokens.account, body });

describeHere('languages in the dashboard', () => {
  it('the banner editor says which language a visitor sees, and saves the order and the languages', async () => {
    const { page, close } = await open('/banner');
    const example = page.getByRole('group', { name: 'Which language a visitor sees' });
    const says = () => example.locator('p').textContent();
    expect(await says()).toBe('A visitor whose browser asks for German on a page marked English sees: German');
    await page.getByLabel("The visitor's language is taken from").selectOption({ label: "The page's language, then the visitor's browser" });
    await expect.poll(says).toBe('A visitor whose browser asks for German on a page marked English sees: English');
    await example.getByLabel('on a page marked').selectOption('ja');
    await expect.poll(says).toBe('A visitor whose browser asks for German on a page marked Japanese sees: German');
    // A language the banner does not speak counts for nothing: the account's language speaks.
    await page.getByLabel('Languages the banner speaks').fill('en, fr');
    await expect.poll(says).toBe('A visitor whose browser asks for German on a page marked Japanese sees: English');
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
    await inspect(page, 'banner-languages');
    await page.getByRole('button', { name: 'Save banner' }).click();
    await page.getByText('The banner was saved').waitFor();
    const saved = (await api('GET', '/api/v1/banner')).body.data;
    expect(saved).toMatchObject({ languages: ['en', 'fr'], language_sources: ['page', 'browser', 'default'] });
    // Saved again without touching them, the languages stay as chosen; the texts' languages are the ones spoken.
    await page.getByRole('button', { name: 'Save banner' }).click();
    await expect.poll(async () => (await api('GET', '/api/v1/banner')).body.data.languages).toEqual(['en', 'fr']);
    const options = await page.getByLabel('Language of the texts').locator('option').allTextContents();
    expect(options).toEqual(['English (en)', 'French (fr)']);
    await api('PATCH', '/api/v1/banner', { banner: { languages: null, language_sources: ['browser', 'page', 'default'] } });
    await close();
  });

  it('takes the texts of a category, a storage item and a service in each other language the banner speaks', async () => {
    await api('PATCH', '/api/v1/banner', { banner: { languages: ['en', 'de'] } });
    const category = (await api('POST', '/api/v1/categories', { category: { name: 'Statistics', translations: { de: { description: 'Zählt' } } } })).body.data;
    const item = (await api('POST', '/api/v1/storage-items', { storage_item: { name: '_pk_id', duration: '13 months', category_id: category.id } })).body.data;
    const service = (await api('POST', '/api/v1/services', { service: { name: 'Reader counter', category_id: category.id } })).body.data;

    const edit = async (path: string, row: string, fill: Record<string, string>) => {
      const { page, close } = await open(path);
      await page.getByRole('button', { name: `Edit ${row}` }).click();
      const form = page.getByRole('form', { name: `Edit ${row}` });
      // Folded away, unless the record has texts in another language already.
      const folded = form.locator('details.translations');
      if (!(await folded.evaluate((details) => (details as HTMLDetailsElement).open))) await form.getByText('In other languages (German)').click();
      for (const [label, value] of Object.entries(fill)) await form.getByLabel(label, { exact: true }).fill(value);
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
      await inspect(page, `${path.slice(1)}-translations`);
      await form.getByRole('button', { name: /^Save/ }).click();
      await form.waitFor({ state: 'detached' });
      await close();
    };
    // The category's German description shows, and an emptied one goes.
    const categoryPage = await open('/categories');
    await categoryPage.page.getByRole('button', { name: 'Edit Statistics' }).click();
    expect(await categoryPage.page.locator('details.translations').evaluate((details) => (details as HTMLDetailsElement).open)).toBe(true);
    expect(await categoryPage.page.getByLabel('Description in German', { exact: true }).inputValue()).toBe('Zählt');
    await categoryPage.close();
    await edit('/categories', 'Statistics', { 'Name in German': 'Statistik', 'Description in German': '' });
    await edit('/storage-items', '_pk_id', { 'Description in German': 'Unterscheidet Leser.', 'Duration in German': '13 Monate' });
    await edit('/services', 'Reader counter', { 'Name in German': 'Leserzähler' });

    expect((await api('GET', `/api/v1/categories/${category.id}`)).body.data.translations).toEqual({ de: { name: 'Statistik' } });
    expect((await api('GET', `/api/v1/storage-items/${item.id}`)).body.data).toMatchObject({
      category_id: category.id, translations: { de: { description: 'Unterscheidet Leser.', duration: '13 Monate' } },
    });
    expect((await api('GET', `/api/v1/services/${service.id}`)).body.data.translations).toEqual({ de: { name: 'Leserzähler' } });
  }, 120_000);
});
