/**
 * The dashboard's AI and publishing in a real Chromium against the real server: "classify" on the
 * storage items, "approve all shown" on the AI suggestions, publishing a category, and the warning
 * beside an item whose category is not published. Each test has an account of its own. This file
 * runs in the embedded project only (vitest.config.ts): the API under it is tested on both engines.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { describeBrowser, fileBrowser } from '../../helpers/browser.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { inspect, settled, signIn, WIDTHS } from '../../helpers/dashboard.ts';
import { createItem, settledItem } from '../../helpers/storage-items.ts';
import { createTenant, PASSWORD, type Tenant } from '../../helpers/tenants.ts';
import { dashboardBuilt } from '../../helpers/web-build.ts';

const describeHere = dashboardBuilt() ? describeBrowser : describe.skip;

const { t } = fileApp({ listen: true, env: { RATE_LIMIT_MAX: '100000', AUTH_RATE_LIMIT_PER_MIN: '100000' } });
const browser = fileBrowser();

let tenants = 0;
/** An account of its own, with the AI's settings given (those of an account made before the AI was on by default: off). */
async function tenantWith(ai_features: Record<string, boolean> = {}): Promise<Tenant> {
  const tenant = await createTenant(t.services, `Ai browser ${++tenants}`);
  const res = await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.partner, body: { account: { ai_features } } });
  expect(res.status).toBe(200);
  return tenant;
}

const setAi = (tenant: Tenant, ai_features: Record<string, boolean>) =>
  call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.partner, body: { account: { ai_features } } });

async function signedIn(tenant: Tenant, path: string): Promise<Page> {
  const context = await browser.newContext({ viewport: WIDTHS.desktop, baseURL: t.url });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  await signIn(page, tenant.admin.email, PASSWORD);
  await page.goto(`/accounts/${tenant.account.id}${path}`);
  await settled(page);
  return page;
}

const item = (tenant: Tenant, id: string) => call(t.app, 'GET', `/api/v1/storage-items/${id}`, { token: tenant.tokens.account }).then((r) => r.body.data);
const categoryOf = (tenant: Tenant, id: string) => call(t.app, 'GET', `/api/v1/categories/${id}`, { token: tenant.tokens.account }).then((r) => r.body.data);
const bannerText = async (tenant: Tenant) =>
  JSON.stringify((await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`, { headers: { origin: `https://${tenant.account.domain}` } })).body);
/** A category not published yet, made through the API. */
async function draftCategory(tenant: Tenant, name: string) {
  const made = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name, published: false } } });
  expect(made.status).toBe(201);
  return made.body.data;
}
const rowOf = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${name}`) }) });

/** Items that stay uncategorised drafts: made while the AI was off. */
async function uncategorised(tenant: Tenant, names: string[]) {
  const items = [];
  for (const name of names) items.push(await createItem(t.app, tenant, { name }));
  expect(items.map((i) => [i.status, i.category_id])).toEqual(names.map(() => ['draft', null]));
  return items;
}

describeHere('the AI and publishing in the dashboard', () => {
  it('classifies the selected items, then every uncategorised one, from the storage items page', async () => {
    const tenant = await tenantWith();
    const [gid, hstc, fbp] = await uncategorised(tenant, ['_gid', '__hstc', '_fbp']);
    expect((await setAi(tenant, { auto_categorise: true, autofill: true })).status).toBe(200);
    const page = await signedIn(tenant, '/storage-items');
    const tools = page.getByRole('group', { name: 'Classify with the AI' });

    await page.getByRole('checkbox', { name: 'Select _gid' }).check();
    await tools.getByRole('button', { name: 'Classify selected (1)' }).click();
    await page.getByText('The AI is classifying 1 item').waitFor();
    // The list follows the AI: the item shows its new category, which the AI created unpublished.
    await rowOf(page, '_gid').getByText('In review').waitFor();
    await rowOf(page, '_gid').getByText('not published').waitFor();
    const classified = await item(tenant, gid.id);
    expect(classified.status).toBe('in_review');
    expect(await rowOf(page, '_gid').textContent()).toContain((await categoryOf(tenant, classified.category_id)).name);
    for (const other of [hstc, fbp]) expect(await item(tenant, other.id)).toMatchObject({ status: 'draft', category_id: null });

    await tools.getByRole('button', { name: 'Classify all uncategorised' }).click();
    await page.getByText('The AI is classifying 2 items').waitFor();
    for (const name of ['__hstc', '_fbp']) await rowOf(page, name).getByText('In review').waitFor();
    for (const other of [hstc, fbp]) expect(await settledItem(t.app, tenant, other.id)).toMatchObject({ status: 'in_review', category_id: expect.any(String) });
    await inspect(page, 'storage-items-classified');

    // Nothing left: said so, and nothing is sent to the AI again.
    await tools.getByRole('button', { name: 'Classify all uncategorised' }).click();
    await page.getByText('There is no uncategorised draft to classify.').waitFor();
    await page.context().close();
  });

  it('says why it cannot classify while the AI may not categorise', async () => {
    const tenant = await tenantWith();
    await uncategorised(tenant, ['_gid']);
    const page = await signedIn(tenant, '/storage-items');
    await page.getByRole('button', { name: 'Classify all uncategorised' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/^AI categorisation is off for this account/);
    await page.context().close();
  });

  it('approves every item shown on the AI suggestions page in one go, after asking, with Approve beside each name', async () => {
    const tenant = await tenantWith({ auto_categorise: true, autofill: true });
    const names = ['_gid', '__hstc', '_fbp'];
    const items = [];
    for (const name of names) items.push(await settledItem(t.app, tenant, (await createItem(t.app, tenant, { name })).id));
    expect(items.map((i) => i.status)).toEqual(['in_review', 'in_review', 'in_review']);
    // An item the AI could only guess at is not approved with the rest.
    const unsure = await settledItem(t.app, tenant, (await createItem(t.app, tenant, { name: 'zq_unknown_thing' })).id);
    expect(unsure).toMatchObject({ status: 'draft', category_id: null });

    const page = await signedIn(tenant, '/ai');
    // The Approve button is in view beside the item's name, on a laptop and on a phone, without scrolling the table.
    for (const size of Object.values(WIDTHS)) {
      await page.setViewportSize(size);
      const wrap = (await page.getByRole('region', { name: 'AI suggestions' }).boundingBox())!;
      for (const name of names) {
        const row = rowOf(page, name).filter({ has: page.getByRole('button', { name: `Approve ${name}` }) }).first();
        const button = (await row.getByRole('button', { name: `Approve ${name}` }).boundingBox())!;
        const header = (await row.getByRole('rowheader').boundingBox())!;
        expect(button.x + button.width, `Approve ${name} at ${size.width}px`).toBeLessThanOrEqual(wrap.x + wrap.width);
        expect(button.x, `Approve ${name} beside its name at ${size.width}px`).toBeLessThan(header.x + header.width + 200);
      }
    }
    await page.setViewportSize(WIDTHS.desktop);

    const approveAll = page.getByRole('button', { name: 'Approve all shown (3)' });
    let question = '';
    page.once('dialog', (dialog) => { question = dialog.message(); void dialog.dismiss(); });
    await approveAll.click();
    await expect.poll(() => question).toMatch(/^Approve these 3 items: /);
    for (const name of names) expect(question).toContain(name);
    expect(question).not.toContain('zq_unknown_thing');
    for (const i of items) expect((await item(tenant, i.id)).status).toBe('in_review');

    page.once('dialog', (dialog) => void dialog.accept());
    await approveAll.click();
    const notice = page.getByRole('status').filter({ hasText: '3 items approved.' });
    await notice.waitFor();
    // The AI made the categories: the owner is told they still have to publish them.
    expect(await notice.textContent()).toMatch(/not\s+published yet: publish them under Categories/);
    for (const i of items) expect(await item(tenant, i.id)).toMatchObject({ status: 'finalised', approved_by_type: 'User' });
    expect(await item(tenant, unsure.id)).toMatchObject({ status: 'draft' });
    // Gone once the list is loaded again, which may come after the notice.
    await expect.poll(() => page.getByRole('button', { name: /^Approve all shown/ }).count()).toBe(0);
    await inspect(page, 'ai-approved');
    await page.context().close();
  });

  it('shows on the categories page which categories are published, and publishes and unpublishes one', async () => {
    const tenant = await tenantWith();
    const category = await draftCategory(tenant, 'Statistics');
    await createItem(t.app, tenant, { name: 'stats_cookie', category_id: category.id, status: 'finalised' });
    await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name: 'Essentials' } } });
    const page = await signedIn(tenant, '/categories');
    const row = rowOf(page, 'Statistics');
    expect(await row.getByRole('cell').first().textContent()).toBe('Draft');
    expect(await rowOf(page, 'Essentials').getByRole('cell').first().textContent()).toBe('Published');
    await inspect(page, 'categories-draft');
    expect(await bannerText(tenant)).not.toContain('stats_cookie');

    await row.getByRole('button', { name: 'Publish Statistics' }).click();
    await page.getByText('Statistics is published: it is on the banner, with its finalised items.').waitFor();
    await row.getByText('Published', { exact: true }).waitFor();
    expect((await categoryOf(tenant, category.id)).published).toBe(true);
    expect(await bannerText(tenant)).toContain('stats_cookie');

    // Taking it off the banner asks first.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await row.getByRole('button', { name: 'Unpublish Statistics' }).click();
    expect((await categoryOf(tenant, category.id)).published).toBe(true);
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Unpublish Statistics' }).click();
    await row.getByText('Draft', { exact: true }).waitFor();
    expect((await categoryOf(tenant, category.id)).published).toBe(false);
    expect(await bannerText(tenant)).not.toContain('stats_cookie');
    await page.context().close();
  });

  it('warns on the storage items page that an item of an unpublished category will not reach the banner, and publishes it', async () => {
    const tenant = await tenantWith();
    const category = await draftCategory(tenant, 'Advertising');
    await createItem(t.app, tenant, { name: '_ad_one', category_id: category.id, status: 'finalised' });
    await createItem(t.app, tenant, { name: '_ad_two', category_id: category.id, status: 'in_review' });
    const page = await signedIn(tenant, '/storage-items');
    const warning = page.locator('.note.warning').filter({ hasText: 'Advertising' });
    expect(await warning.textContent()).toContain('The category Advertising is not published: its 2 items will not reach the banner until it is.');
    expect(await rowOf(page, '_ad_one').textContent()).toContain('not published');
    await inspect(page, 'storage-items-unpublished');

    // The item's own form says so too.
    await rowOf(page, '_ad_one').getByRole('button', { name: 'Edit _ad_one' }).click();
    const form = page.getByRole('form', { name: 'Edit _ad_one' });
    expect(await form.locator('.note.warning').textContent()).toContain('this item will not reach the banner until it is');
    expect(await bannerText(tenant)).not.toContain('_ad_one');

    await form.getByRole('button', { name: 'Publish Advertising' }).click();
    await page.getByText('Advertising is published').waitFor();
    await expect.poll(() => page.locator('.note.warning').count()).toBe(0);
    expect(await rowOf(page, '_ad_one').textContent()).not.toContain('not published');
    expect((await categoryOf(tenant, category.id)).published).toBe(true);
    expect(await bannerText(tenant)).toContain('_ad_one');
    await page.context().close();
  });
});
