/**
 * The dashboard in a real Chromium against the real server (listening on loopback in this process):
 * the flows people go through, axe-core on every page, and screenshots at 1280 and 390 pixels.
 */
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/db/ids.ts';
import { seedDemo } from '../../../src/demo.ts';
import { insertAiAction } from '../../../src/modules/ai-actions/ai-actions.repository.ts';
import { call, startApp } from '../../helpers/app.ts';
import { RETRIED_UNDER_CI, describeBrowser, fileBrowser, reportRetries } from '../../helpers/browser.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { freePort, inspect, seriousViolations, settled, signIn } from '../../helpers/dashboard.ts';
import { createTenant, PASSWORD } from '../../helpers/tenants.ts';
import { dashboardBuilt } from '../../helpers/web-build.ts';

// The pages do not depend on the database engine; the API under them is tested on both. This file
// runs in the embedded project only (vitest.config.ts).
const describeHere = dashboardBuilt() ? describeBrowser : describe.skip;

const { t, tenants: [tenant], inbox } = fileApp({
  listen: true, inbox: true, env: { RATE_LIMIT_MAX: '100000', AUTH_RATE_LIMIT_PER_MIN: '100000', TCF_GVL_FILE: 'test/fixtures/tcf/vendor-list.json' }, tenants: ['Browser'],
});
const browser = fileBrowser();

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: t.url });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  context.setDefaultTimeout(10_000);
  return { context, page: await context.newPage() };
}

/** The admin's banner editor, once its preview shows the banner. */
async function bannerEditor() {
  const { context, page } = await newPage();
  await signIn(page, tenant.admin.email, PASSWORD);
  await page.getByRole('link', { name: 'Banner', exact: true }).click();
  await settled(page);
  const preview = page.frameLocator('iframe[title="Banner preview"]');
  await preview.getByRole('button', { name: 'Accept all' }).first().waitFor();
  return { context, page, preview };
}

/**
 * A finished scan (stored as the runner stores one) that found an advertising cookie set before
 * consent, and with `uncategorised` a cookie without a category set before consent too.
 */
async function finishedScan(label: string, options: { uncategorised?: boolean } = {}): Promise<string> {
  const token = tenant.tokens.account;
  const category = await call(t.app, 'POST', '/api/v1/categories', { token, body: { category: { name: `Advertising ${label}` } } });
  const item = await call(t.app, 'POST', '/api/v1/storage-items', {
    token, body: { storage_item: { name: `_ads_${label}`, domain: 'browser.example.com', category_id: category.body.data.id } },
  });
  const made = [{ name: `_ads_${label}`, id: item.body.data.id as string }];
  if (options.uncategorised) {
    // Written as a scan writes a new item, and out of the AI's reach (an earlier test may have turned it on).
    const row = await t.services.db.insertInto('storage_items').values({
      id: newId(), account_id: tenant.account.id, name: `_hjSessionUser_${label}`, domain: 'browser.example.com', created_by: 'scan',
    }).returning('id').executeTakeFirstOrThrow();
    made.push({ name: `_hjSessionUser_${label}`, id: row.id });
  }
  const id = newId();
  const url = `https://${tenant.account.domain}/`;
  const found = [];
  for (const { name, id: itemId } of made) {
    found.push({
      name, domain: 'browser.example.com', storage_type: 'cookie', storage_item_id: itemId, first_seen_url: url,
      expires_at: null, duration: '90 days', path: '/', secure: true, http_only: false, same_site: 'Lax', partitioned: false,
      set_before_consent: true, set_by: null,
    });
  }
  await t.services.db.insertInto('scans').values({
    id, account_id: tenant.account.id, owner_id: tenant.partner.id, status: 'completed', starting_url: url, max_pages: 5, pages_scanned: 1, storage_items_found: found.length,
    started_at: new Date(), finished_at: new Date(),
    report: JSON.stringify({
      pages: [{ url, status: 200, time_ms: 120, pass: 'before_consent', error: null }],
      storage_items: found,
      refused: [],
      consent_banner: false,
    }),
  }).execute();
  return id;
}

/** The newest email to `to`, once it has arrived. */
async function mailTo(to: string, after: number): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const mails = inbox.mails.filter((mail) => mail.to.includes(to));
    if (mails.length > after) return mails.at(-1)!.text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no email reached ${to}`);
}
const mailsTo = (to: string) => inbox.mails.filter((mail) => mail.to.includes(to)).length;

describeHere('the dashboard in a browser', RETRIED_UNDER_CI, () => {
  reportRetries();
  it('signs in with the keyboard alone, shows the overview with the install snippet, and signs out', async () => {
    const { context, page } = await newPage();
    await page.goto('/');
    await page.waitForURL(/\/sign-in$/);
    await settled(page);
    // Tab from the top of the page: skip link, brand, the two ways, then the fields.
    await page.keyboard.press('Tab');
    for (let i = 0; i < 10 && !(await page.evaluate(() => document.activeElement?.getAttribute('name') === 'email')); i++) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.type(tenant.admin.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.url}/accounts/${tenant.account.id}`);
    await settled(page);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(tenant.account.name);
    // The last step says what "Live" takes, beside the steps.
    const steps = page.getByRole('list').filter({ hasText: 'Live (10 visitors in 30 days)' });
    const explained = page.locator(`#${await steps.getAttribute('aria-describedby')}`);
    expect(await explained.textContent()).toMatch(/^Live: the banner reached at least 10 different visitors in the last 30 days\. A visitor is a browser session /);
    const snippet = `<script src="${t.url}/widget/${tenant.account.id}.js"></script>`;
    expect(await page.locator('#install-snippet').textContent()).toBe(snippet);
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in$/);
    const token = await page.evaluate(() => localStorage.getItem('consentry.token'));
    expect(token).toBeNull();
    await context.close();
  });

  it('says in words why a sign-in failed', async () => {
    const { context, page } = await newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Email', { exact: true }).fill(tenant.admin.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Invalid email or password');
    await context.close();
  });

  it('signs up from the sign-in page, saying the API\'s refusals in the form, and is signed in', async () => {
    const { context, page } = await newPage();
    await page.goto('/sign-in');
    await settled(page);
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL(`${t.url}/sign-up`);
    await settled(page);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign up');
    const form = page.getByRole('form', { name: 'Sign up' });
    const email = `new-owner-${Date.now()}@example.test`;
    await form.getByLabel('Your name').fill('New Owner');
    await form.getByLabel('Email').fill(tenant.admin.email);
    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Sign up' }).click();
    expect(await form.getByRole('alert').textContent()).toBe('Email has already been taken');
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Password').fill('short');
    await form.getByRole('button', { name: 'Sign up' }).click();
    expect(await form.getByRole('alert').textContent()).toBe('Password is too short (minimum is 8 characters)');

    await form.getByLabel('Password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Sign up' }).click();
    // A new login has no account yet: it lands where it creates one, signed in with the API's session token.
    await page.waitForURL(`${t.url}/accounts`);
    await settled(page);
    expect(await page.locator('.who').textContent()).toBe('New Owner');
    const token = await page.evaluate(() => localStorage.getItem('consentry.token'));
    const me = await call(t.app, 'GET', '/api/v1/me', { token: token! });
    expect(me.body.data).toMatchObject({ token_type: 'user', user: { name: 'New Owner', email } });
    await context.close();
  });

  it('says on the sign-up page that sign-up is turned off, when the server is configured so', async () => {
    const port = await freePort();
    const closed = await startApp({ env: { SIGNUP_ENABLED: 'false' } });
    try {
      await closed.app.listen({ port, host: '127.0.0.1' });
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: `http://127.0.0.1:${port}` });
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      // Sign-in offers no way to a form the server refuses, and the sign-up page says so before anything is typed.
      await page.goto('/sign-in');
      await settled(page);
      expect(await page.getByRole('link', { name: 'Sign up' }).count()).toBe(0);
      await page.goto('/sign-up');
      await settled(page);
      expect(await page.getByRole('alert').textContent()).toMatch(/^Sign-up is disabled on this server\. Ask someone /);
      expect(await page.getByRole('form', { name: 'Sign up' }).count()).toBe(0);
      await inspect(page, 'sign-up-turned-off');
      await context.close();
      // A server whose sign-up was turned off after its page loaded: the API's refusal takes the form's place.
      const user = { name: 'Turned Away', email: 'turned-away@example.test', password: PASSWORD };
      const refusal = await call(closed.app, 'POST', '/api/v1/users', { body: { user } });
      expect(refusal.status).toBe(403);
      const open = await newPage();
      await open.page.route('**/api/v1/users', (route) => route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify(refusal.body) }));
      await open.page.goto('/sign-up');
      await settled(open.page);
      await open.page.getByLabel('Your name').fill(user.name);
      await open.page.getByLabel('Email').fill(user.email);
      await open.page.getByLabel('Password').fill(user.password);
      await open.page.getByRole('button', { name: 'Sign up' }).click();
      expect(await open.page.getByRole('alert').textContent()).toMatch(/^Sign-up is disabled on this server\. Ask someone /);
      expect(await open.page.getByRole('form', { name: 'Sign up' }).count()).toBe(0);
      expect(await open.page.evaluate(() => localStorage.getItem('consentry.token'))).toBeNull();
      expect(await closed.services.db.selectFrom('users').select('id').where('email', '=', user.email).execute()).toEqual([]);
      await open.context.close();
    } finally {
      await closed.close();
    }
  });

  it('creates a category and a storage item in it, and filters the uncategorised ones', async () => {
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Categories' }).click();
    await settled(page);
    await page.getByLabel('Name').fill('Analytics');
    await page.getByLabel('Description').fill('Counts visits');
    // Sent from the keyboard, the form keeps the focus on its button: the next Tab goes on from there.
    await page.getByRole('button', { name: 'Add category' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('rowheader', { name: 'Analytics' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add category');
    const categories = await call(t.app, 'GET', '/api/v1/categories', { token: tenant.tokens.account });
    const analytics = categories.body.data.find((c: { name: string }) => c.name === 'Analytics');
    expect(analytics).toMatchObject({ slug: 'analytics', description: 'Counts visits', required: false });

    await page.getByRole('link', { name: 'Storage items' }).click();
    await settled(page);
    const form = page.getByRole('form', { name: 'New storage item' });
    await form.getByLabel('Name').fill('_ga');
    await form.getByLabel('Domain').fill('.browser.example.com');
    await form.getByLabel('Category').selectOption({ label: 'Analytics' });
    await form.getByLabel('Duration').fill('2 years');
    await form.getByRole('button', { name: 'Add item' }).click();
    await page.getByRole('rowheader', { name: '_ga' }).waitFor();
    await form.getByLabel('Name').fill('_hj*');
    await form.getByRole('button', { name: 'Add item' }).click();
    await page.getByRole('rowheader', { name: '_hj* wildcard' }).waitFor();
    const items = await call(t.app, 'GET', '/api/v1/storage-items', { token: tenant.tokens.account });
    expect(items.body.data.map((i: { name: string; category_id: string | null }) => [i.name, i.category_id]))
      .toEqual([['_ga', analytics.id], ['_hj*', null]]);

    await page.getByRole('group', { name: 'Filters' }).getByLabel('Category').selectOption({ label: 'Uncategorised' });
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    expect(await page.locator('tbody th').allTextContents()).toEqual(['_hj*wildcard']);

    // Editing an item, and a refusal of the API said in its own words.
    await page.getByRole('button', { name: 'Edit _hj*' }).click();
    const edit = page.getByRole('form', { name: 'Edit _hj*' });
    await edit.getByLabel('Category').selectOption({ label: 'Analytics' });
    await edit.getByRole('button', { name: 'Save item' }).click();
    await page.getByText('No storage items match.').waitFor();
    await page.getByRole('link', { name: 'Categories' }).click();
    await settled(page);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete Analytics' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Category still holds storage items; move or delete them first');
    await context.close();
  });

  it('keeps every storage item\'s Delete button in view at 1280 pixels, long names and domains included', async () => {
    const token = tenant.tokens.account;
    const category = await call(t.app, 'POST', '/api/v1/categories', { token, body: { category: { name: 'Functional and personalisation' } } });
    const long = { name: '_hjSessionUser_3141592653589793', domain: '.customer-accounts.the-corner-bakery-and-patisserie.example.com' };
    for (const item of [long, { name: 'AMP_TOKEN_for_the_shop_analytics', domain: 'analytics-gateway.the-corner-bakery-and-patisserie.example.com' }]) {
      const made = await call(t.app, 'POST', '/api/v1/storage-items', {
        token, body: { storage_item: { ...item, category_id: category.body.data.id, duration: '1 year and 30 days', status: 'in_review' } },
      });
      expect(made.status).toBe(201);
    }
    const { context, page } = await newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Storage items' }).click();
    await settled(page);
    const table = page.getByRole('region', { name: 'Storage items' });
    const wrap = await table.boundingBox();
    for (const button of await table.getByRole('button', { name: /^Delete / }).all()) {
      const box = (await button.boundingBox())!;
      const name = await button.getAttribute('aria-label');
      // Inside the window and inside the table's own scrolling box, nothing of it cut off.
      expect(box.x + box.width, `${name} ends past the window`).toBeLessThanOrEqual(1280);
      expect(box.x + box.width, `${name} is cut off by the table`).toBeLessThanOrEqual(wrap!.x + wrap!.width);
    }
    await table.getByRole('button', { name: `Delete ${long.name}` }).click({ trial: true });
    await context.close();
  });

  it('shows the vendor list in force and saves the TCF settings, saying why it refuses them', async () => {
    const { context, page } = await bannerEditor();
    const section = page.getByRole('region', { name: 'IAB TCF' });
    await section.getByText('Global Vendor List version 100').waitFor();
    const form = section.getByRole('form', { name: 'IAB TCF settings' });
    await form.getByLabel('Use the IAB TCF in opt-in regions').check();
    await form.getByRole('button', { name: 'Save TCF settings' }).click();
    await form.getByRole('alert').filter({ hasText: /cmp_id|CMP ID/i }).waitFor();
    await form.getByLabel('CMP ID').fill('123');
    await form.getByLabel('Publisher country').fill('de');
    await form.getByLabel('Vendor ids').fill('1, 2');
    await form.getByRole('button', { name: 'Save TCF settings' }).click();
    await section.getByText('The TCF settings were saved.').waitFor();
    const tcf = (await call(t.app, 'GET', '/api/v1/banner', { token: tenant.tokens.account })).body.data.tcf;
    expect(tcf).toMatchObject({ enabled: true, cmp_id: 123, publisher_country_code: 'DE', vendor_ids: [1, 2] });
    await call(t.app, 'PATCH', '/api/v1/banner', { token: tenant.tokens.admin, body: { banner: { tcf: null } } });
    await context.close();
  });

  it('shows in the audit log who made a change and what changed, and filters it', async () => {
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Categories' }).click();
    await settled(page);
    await page.getByLabel('Name').fill('Audited');
    await page.getByRole('button', { name: 'Add category' }).click();
    await page.getByRole('rowheader', { name: 'Audited' }).waitFor();
    await page.getByRole('link', { name: 'Audit log' }).click();
    await settled(page);
    const row = page.getByRole('row').filter({ hasText: 'create category' }).filter({ hasText: '"Audited"' });
    await row.waitFor();
    expect(await row.getByRole('cell').first().textContent()).toBe(`A person${tenant.admin.id}`);
    await inspect(page, 'audit-log');
    await page.getByLabel('Resource (optional)').fill('no_such_resource');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No change recorded with these filters.').waitFor();
    await context.close();
  });

  it('adds a service under a category, edits it and deletes it', async () => {
    const video = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name: 'Video players' } } });
    expect(video.status).toBe(201);
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Services' }).click();
    await settled(page);
    const form = page.getByRole('form', { name: 'New service' });
    await form.getByLabel('Name').fill('YouTube');
    await form.getByLabel('Company').fill('Google');
    await form.getByLabel('Category').selectOption({ label: 'Video players' });
    await form.getByLabel('Privacy policy').fill('https://policies.google.com/privacy');
    await form.getByRole('button', { name: 'Add service' }).click();
    await page.getByRole('rowheader', { name: 'YouTube' }).waitFor();
    expect(await page.getByRole('row', { name: /YouTube/ }).getByRole('cell').first().textContent()).toBe('Google');
    const listed = await call(t.app, 'GET', '/api/v1/services', { token: tenant.tokens.account });
    expect(listed.body.data).toEqual([expect.objectContaining({
      name: 'YouTube', slug: 'youtube', company_name: 'Google', category_id: video.body.data.id, privacy_policy_url: 'https://policies.google.com/privacy',
    })]);

    await page.getByRole('button', { name: 'Edit YouTube' }).click();
    const edit = page.getByRole('form', { name: 'Edit YouTube' });
    await edit.getByLabel('Name').fill('YouTube embeds');
    await edit.getByRole('button', { name: 'Save service' }).click();
    await page.getByRole('rowheader', { name: 'YouTube embeds' }).waitFor();

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete YouTube embeds' }).click();
    await page.getByText('No services yet.').waitFor();
    expect((await call(t.app, 'GET', '/api/v1/services', { token: tenant.tokens.account })).body.data).toEqual([]);
    await context.close();
  });

  it('moves the focus to the Edit form below a long list, on Categories, Storage items and Services', async () => {
    const long = await createTenant(t.services, 'Long lists');
    const token = long.tokens.account;
    for (let i = 10; i < 30; i++) {
      expect((await call(t.app, 'POST', '/api/v1/categories', { token, body: { category: { name: `Category ${i}` } } })).status).toBe(201);
      expect((await call(t.app, 'POST', '/api/v1/storage-items', { token, body: { storage_item: { name: `item_${i}` } } })).status).toBe(201);
      expect((await call(t.app, 'POST', '/api/v1/services', { token, body: { service: { name: `Service ${i}` } } })).status).toBe(201);
    }
    const { context, page } = await newPage();
    await signIn(page, long.admin.email, PASSWORD);
    for (const [link, row] of [['Categories', 'Category 10'], ['Storage items', 'item_10'], ['Services', 'Service 10']]) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await settled(page);
      await page.getByRole('rowheader', { name: row }).waitFor();
      // The form is below the fold: without the focus moving there, clicking Edit shows nothing.
      expect(await page.evaluate(() => document.querySelector('section.card')!.getBoundingClientRect().top > innerHeight), link).toBe(true);
      await page.getByRole('button', { name: `Edit ${row}` }).click();
      const name = page.getByRole('form', { name: `Edit ${row}` }).getByLabel('Name');
      await name.waitFor();
      expect(await name.evaluate((input) => input === document.activeElement), link).toBe(true);
      expect(await name.evaluate((input) => input.getBoundingClientRect().bottom <= innerHeight), link).toBe(true);
    }
    await context.close();
  });

  it('takes away a refused deletion\'s error once a later action succeeds', async () => {
    const owner = await createTenant(t.services, 'Refusals');
    const token = owner.tokens.account;
    const holding = await call(t.app, 'POST', '/api/v1/categories', { token, body: { category: { name: 'Holding' } } });
    const held = await call(t.app, 'POST', '/api/v1/storage-items', { token, body: { storage_item: { name: '_held', category_id: holding.body.data.id } } });
    expect(held.status).toBe(201);
    const { context, page } = await newPage();
    await signIn(page, owner.admin.email, PASSWORD);
    const refuse = async () => {
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Delete Holding' }).click();
      expect(await page.getByRole('alert').textContent()).toBe('Category still holds storage items; move or delete them first');
    };
    await page.getByRole('link', { name: 'Categories', exact: true }).click();
    await settled(page);
    await refuse();
    // A category added: the refusal is no longer what the page has to say.
    await page.getByRole('form', { name: 'New category' }).getByLabel('Name').fill('Added after');
    await page.getByRole('button', { name: 'Add category' }).click();
    await page.getByRole('rowheader', { name: 'Added after' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    // Nor after a category edited.
    await refuse();
    await page.getByRole('button', { name: 'Edit Added after' }).click();
    await page.getByRole('form', { name: 'Edit Added after' }).getByLabel('Name').fill('Edited after');
    await page.getByRole('button', { name: 'Save category' }).click();
    await page.getByRole('rowheader', { name: 'Edited after' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);

    // On Services, a service deleted meanwhile elsewhere is refused (404), then another one is added.
    const gone = await call(t.app, 'POST', '/api/v1/services', { token, body: { service: { name: 'Gone' } } });
    await page.getByRole('link', { name: 'Services', exact: true }).click();
    await settled(page);
    await page.getByRole('rowheader', { name: 'Gone' }).waitFor();
    expect((await call(t.app, 'DELETE', `/api/v1/services/${gone.body.data.id}`, { token })).status).toBe(200);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete Gone' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByRole('form', { name: 'New service' }).getByLabel('Name').fill('Kept');
    await page.getByRole('button', { name: 'Add service' }).click();
    await page.getByRole('rowheader', { name: 'Kept' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await context.close();
  });

  it('filters the consent log and opens a consent', async () => {
    const token = tenant.tokens.account;
    for (const session of ['visitor-a', 'visitor-b']) {
      const res = await call(t.app, 'POST', '/api/v1/consents', {
        token, body: { consent: { session_id: session, user_preferences: { accept_type: 'necessary' }, url: `https://browser.example.com/${session}` } },
      });
      expect(res.status).toBe(201);
    }
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Consent log' }).click();
    await settled(page);
    await page.getByLabel('Session').fill('visitor-b');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    expect(await page.locator('tbody td').first().textContent()).toBe('Necessary only');
    await page.locator('tbody th a').click();
    await settled(page);
    expect(await page.locator('.details').first().textContent()).toContain('https://browser.example.com/visitor-b');
    // The way back shows the filtered list it was opened from.
    await page.getByRole('link', { name: 'Back to the consent log' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    expect(await page.getByLabel('Session').inputValue()).toBe('visitor-b');
    expect(await page.locator('tbody td code').allTextContents()).toEqual(['visitor-b']);
    await context.close();
  });

  it('keeps the consent log\'s filters in the address, through a reload and Back', async () => {
    const token = tenant.tokens.account;
    for (const session of ['kept-a', 'kept-b', 'kept-a']) {
      const res = await call(t.app, 'POST', '/api/v1/consents', { token, body: { consent: { session_id: session, user_preferences: { accept_type: 'all' } } } });
      expect(res.status).toBe(201);
    }
    const today = new Date().toISOString().slice(0, 10);
    const { context, page } = await newPage();
    const sessions = () => page.locator('tbody td code').allTextContents();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Consent log' }).click();
    await settled(page);
    await page.getByRole('cell', { name: 'kept-b' }).waitFor();
    expect((await sessions()).length).toBeGreaterThan(2);
    await page.getByLabel('Session').fill('kept-a');
    await page.getByLabel('From (UTC day)').fill(today);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 2);
    expect(await sessions()).toEqual(['kept-a', 'kept-a']);

    await page.reload();
    await settled(page);
    expect(await page.getByLabel('Session').inputValue()).toBe('kept-a');
    expect(await page.getByLabel('From (UTC day)').inputValue()).toBe(today);
    await page.getByRole('cell', { name: 'kept-a' }).first().waitFor();
    expect(await sessions()).toEqual(['kept-a', 'kept-a']);

    // Back to the log before the filter: its list and its empty fields.
    await page.goBack();
    await page.getByRole('cell', { name: 'kept-b' }).waitFor();
    expect(await page.getByLabel('Session').inputValue()).toBe('');
    expect((await sessions()).length).toBeGreaterThan(2);
    await context.close();
  });

  it('verifies the log, shows a consent\'s hash, and exports CSV and NDJSON equal to the API\'s list', async () => {
    const token = tenant.tokens.account;
    for (const session of ['export-a', 'export-b', 'export-a']) {
      const res = await call(t.app, 'POST', '/api/v1/consents', { token, body: { consent: { session_id: session, user_preferences: { accept_type: 'all' } } } });
      expect(res.status).toBe(201);
    }
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Consent log' }).click();
    await settled(page);
    const listed = (await call(t.app, 'GET', '/api/v1/consents', { token, query: { limit: '100', order: 'asc' } })).body;
    await page.getByRole('button', { name: 'Verify the log' }).click();
    await page.getByText(`The log is intact: the hash chain of ${listed.pagination.count} consents was recomputed`).waitFor();

    // Everything, as NDJSON: the same records as the list, each with its place in the chain.
    const [ndjsonFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export NDJSON' }).click()]);
    expect(ndjsonFile.suggestedFilename()).toBe(`consents-${tenant.account.id}.ndjson`);
    const rows = readFileSync((await ndjsonFile.path())!, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(rows.map(({ chain_seq: _s, hash: _h, personal_hash: _p, erased_at: _e, ...rest }) => rest)).toEqual(listed.data);
    await page.getByText(/^The export was saved \(NDJSON, \d+ KB\)\.$/).waitFor();

    // Filtered by session, as CSV: the rows the filtered list shows.
    await page.getByLabel('Session').fill('export-a');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 2);
    const [csvFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await csvFile.path())!, 'utf8').trim().split('\n');
    const filtered = (await call(t.app, 'GET', '/api/v1/consents', { token, query: { session_id: 'export-a', order: 'asc' } })).body.data;
    expect(csv[0].split(',').slice(0, 3)).toEqual(['id', 'created_at', 'session_id']);
    expect(csv.slice(1).map((line) => line.split(',')[0])).toEqual(filtered.map((c: { id: string }) => c.id));

    // A consent's proof: the hash the API holds for it.
    await page.locator('tbody th a').first().click();
    await settled(page);
    const detail = (await call(t.app, 'GET', `/api/v1/consents/${filtered[1].id}`, { token })).body.data;
    expect(await page.locator('#consent-hash').textContent()).toBe(detail.hash);
    await context.close();
  });

  it('invites a member, who opens the emailed link, accepts and signs in', async () => {
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Members' }).click();
    await settled(page);
    const email = `invitee-${Date.now()}@example.test`;
    const form = page.getByRole('form', { name: 'Invite someone' });
    await form.getByLabel('Name').fill('Ivy Invitee');
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Role').selectOption('admin');
    await form.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`An invitation was emailed to ${email}`).waitFor();
    await page.getByRole('rowheader', { name: 'Ivy Invitee' }).waitFor();
    await context.close();

    const mail = await mailTo(email, 0);
    const link = new RegExp(`${t.url}/invitations/[A-Za-z0-9_-]+`).exec(mail)?.[0];
    expect(link).toBeDefined();
    const invitee = await newPage();
    await invitee.page.goto(link!);
    await settled(invitee.page);
    await invitee.page.getByLabel('Your name (new logins only)').fill('Ivy Invitee');
    await invitee.page.getByLabel('Password').fill('ivy password 1');
    await invitee.page.getByRole('button', { name: 'Accept invitation' }).click();
    await invitee.page.waitForURL(`${t.url}/accounts/${tenant.account.id}`);
    await settled(invitee.page);
    expect(await invitee.page.locator('.who').textContent()).toBe('Ivy Invitee');
    await invitee.page.getByRole('button', { name: 'Sign out' }).click();
    await invitee.page.waitForURL(/\/sign-in$/);
    await signIn(invitee.page, email, 'ivy password 1');
    await invitee.page.getByRole('link', { name: 'Members' }).click();
    await invitee.page.getByRole('rowheader', { name: 'Ivy Invitee you' }).waitFor();
    expect(await invitee.page.getByLabel('Role of Ivy Invitee').inputValue()).toBe('admin');
    // Answering "Cancel" to "Remove …?" removes nobody and says nothing was done.
    const others = invitee.page.getByRole('row').filter({ has: invitee.page.getByRole('rowheader', { name: tenant.admin.name }) });
    invitee.page.once('dialog', (dialog) => void dialog.dismiss());
    await others.getByRole('button', { name: `Remove ${tenant.admin.name}` }).click();
    await settled(invitee.page);
    expect(await invitee.page.getByText('was removed').count()).toBe(0);
    const members = await call(t.app, 'GET', '/api/v1/account-users', { token: tenant.tokens.account });
    expect(members.body.data.map((m: { user: { email: string } }) => m.user.email)).toContain(tenant.admin.email);
    await invitee.context.close();
  });

  it('shows what became of an invitation email, sends it again and cancels it', async () => {
    const email = `resend-${Date.now()}@example.test`;
    const made = await call(t.app, 'POST', '/api/v1/account-invitations', { token: tenant.tokens.account, body: { name: 'Rita Resend', email, role: 'member' } });
    expect(made.body.email_status).toBe('sent');
    const firstLink = /\/invitations\/[A-Za-z0-9_-]+/.exec(await mailTo(email, 0))![0];
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Members' }).click();
    await settled(page);
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Rita Resend' }) });
    expect(await row.locator('td').allTextContents()).toEqual([email, 'Member', 'Open', 'Sent', expect.any(String), 'Send againCancel']);

    // Within the hour the server refuses to email the address again; the page says so in words.
    await row.getByRole('button', { name: `Send again the invitation to ${email}` }).click();
    expect(await page.getByRole('alert').textContent()).toContain(`${email} was emailed less than an hour ago`);
    // An invitation made next succeeds: the refusal above is no longer shown beside it.
    const other = `other-${Date.now()}@example.test`;
    const invite = page.getByRole('form', { name: 'Invite someone' });
    await invite.getByLabel('Name').fill('Otto Other');
    await invite.getByLabel('Email').fill(other);
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`An invitation was emailed to ${other}`).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await t.services.db.updateTable('account_invitations').set({ email_sent_at: new Date(Date.now() - 2 * 3600_000) }).where('id', '=', made.body.id).execute();
    await row.getByRole('button', { name: `Send again the invitation to ${email}` }).click();
    await page.getByText(`An invitation was emailed to ${email}. The old link no longer works`).waitFor();
    const secondLink = /\/invitations\/[A-Za-z0-9_-]+/.exec(await mailTo(email, 1))![0];
    expect(secondLink).not.toBe(firstLink);

    await row.getByRole('button', { name: `Cancel the invitation to ${email}` }).click();
    await page.getByText(`The invitation to ${email} was cancelled.`).waitFor();
    await page.getByRole('rowheader', { name: 'Rita Resend' }).waitFor({ state: 'detached' });
    const after = await call(t.app, 'GET', `/api/v1/account-invitations/${made.body.id}`, { token: tenant.tokens.account });
    expect(after.body.data.deleted_at).not.toBeNull();
    await page.getByLabel('Also show cancelled and accepted invitations').check();
    expect(await row.locator('td').nth(2).textContent()).toBe('Cancelled');
    await context.close();
  });

  it('creates a second account for the user and switches between the two', async () => {
    await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.account, body: { category: { name: 'Only in the first' } } });
    const consent = { consent: { session_id: 'switch-1', user_preferences: { accept_type: 'all' } } };
    expect((await call(t.app, 'POST', '/api/v1/consents', { token: tenant.tokens.account, body: consent })).status).toBe(201);
    const firstStats = (await call(t.app, 'GET', '/api/v1/stats', { token: tenant.tokens.account })).body;
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.goto('/accounts');
    await settled(page);
    const form = page.getByRole('form', { name: 'New account' });
    await form.getByLabel('Name').fill('Second shop');
    await form.getByLabel('Website domain').fill('second.example.com');
    await form.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/accounts\/[0-9a-f-]{36}$/);
    await settled(page);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Second shop');
    const second = page.url().split('/').at(-1)!;
    expect(second).not.toBe(tenant.account.id);
    // The overview's statistics are the shown account's, also right after switching to another.
    const consents = page.locator('.figures dd').first();
    await consents.waitFor();
    expect(await consents.textContent()).toMatch(/^0/);
    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption({ label: tenant.account.name });
    await page.waitForURL(`${t.url}/accounts/${tenant.account.id}`);
    await page.locator('.figures').waitFor();
    await expect.poll(() => consents.textContent()).toMatch(new RegExp(`^${firstStats.totals.consents}`));
    expect(firstStats.totals.consents).toBeGreaterThan(0);
    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption({ label: 'Second shop' });
    await page.waitForURL(`${t.url}/accounts/${second}`);
    await settled(page);
    // A rename shows in the switcher at once.
    const settings = page.getByRole('form', { name: 'Account settings' });
    await settings.getByLabel('Name').fill('Second shop renamed');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    const switcher = page.getByRole('combobox', { name: 'Account', exact: true });
    await expect.poll(() => switcher.locator('option').allTextContents()).toContain('Second shop renamed');

    await page.getByRole('link', { name: 'Categories' }).click();
    await settled(page);
    expect(await page.getByText('No categories yet.').count()).toBe(1);
    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption({ label: tenant.account.name });
    await page.waitForURL(`${t.url}/accounts/${tenant.account.id}/categories`);
    await page.getByRole('rowheader', { name: 'Only in the first' }).waitFor();
    // Services too are the chosen account's (a user of two accounts must name it in each request).
    await call(t.app, 'POST', '/api/v1/services', { token: tenant.tokens.account, body: { service: { name: 'Only here' } } });
    await page.getByRole('link', { name: 'Services' }).click();
    await page.getByRole('rowheader', { name: 'Only here' }).waitFor();
    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption({ label: 'Second shop renamed' });
    await page.waitForURL(`${t.url}/accounts/${second}/services`);
    await page.getByText('No services yet.').waitFor();
    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption({ label: tenant.account.name });
    await page.waitForURL(`${t.url}/accounts/${tenant.account.id}/services`);
    await page.getByRole('rowheader', { name: 'Only here' }).waitFor();
    // The choice is remembered: the start page opens the account last worked on.
    await page.goto('/');
    await page.waitForURL(`${t.url}/accounts/${tenant.account.id}`);
    await context.close();
  });

  it('resets a forgotten password through the emailed link', async () => {
    const { context, page } = await newPage();
    const email = tenant.member.email;
    const before = mailsTo(email);
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await settled(page);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page.getByText('a link to reset the password has been sent').waitFor();

    const link = new RegExp(`${t.url}/reset-password/[A-Za-z0-9_-]+`).exec(await mailTo(email, before))?.[0];
    expect(link).toBeDefined();
    await page.goto(link!);
    await settled(page);
    await page.getByLabel('New password', { exact: true }).fill('fresh password 9');
    await page.getByLabel('New password again').fill('not the same');
    await page.getByRole('button', { name: 'Set password' }).click();
    expect(await page.getByRole('alert').textContent()).toBe("Password confirmation doesn't match Password");
    await page.getByLabel('New password again').fill('fresh password 9');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password has been changed').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await signIn(page, email, 'fresh password 9');
    await context.close();
  });

  it('creates an API token, shows it once with a copy button, and revokes it, hiding it', async () => {
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'API tokens' }).click();
    await settled(page);
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByLabel('Name').fill('Deploy script');
    await form.getByLabel('Reaches').selectOption({ label: `Only the account ${tenant.account.name}` });
    await form.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.locator('#new-token').textContent())!;
    expect(token).toMatch(/^csa_[0-9A-Za-z]{43}$/);
    await page.getByRole('button', { name: 'Copy token' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    expect((await call(t.app, 'GET', '/api/v1/me', { token })).body.data.account.id).toBe(tenant.account.id);
    await page.getByRole('rowheader', { name: 'Deploy script' }).waitFor();

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke Deploy script' }).click();
    await page.getByText('The token Deploy script was revoked.').waitFor();
    await page.getByRole('rowheader', { name: 'Deploy script' }).waitFor({ state: 'detached' });
    // The revoked token is no longer offered for copying.
    expect(await page.locator('#new-token').count()).toBe(0);
    await page.reload();
    await settled(page);
    expect(await page.locator('#new-token').count()).toBe(0);
    expect((await call(t.app, 'GET', '/api/v1/me', { token })).status).toBe(401);
    await context.close();
  });

  it('lets a partner sign in with a token, create a group and an account in it', async () => {
    const { context, page } = await newPage();
    await page.goto('/sign-in');
    await page.getByRole('button', { name: 'API token' }).click();
    await page.getByRole('textbox', { name: 'API token' }).fill(tenant.tokens.partner);
    await page.getByRole('button', { name: 'Sign in with token' }).click();
    await page.waitForURL(`${t.url}/partner`);
    await settled(page);
    await page.getByRole('rowheader', { name: tenant.group.name }).waitFor();

    const groupForm = page.getByRole('form', { name: 'New group' });
    await groupForm.getByLabel('Name').fill('Agency customer');
    await groupForm.getByLabel('Pageviews per month (quota)').fill('50000');
    await groupForm.getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(/\/partner\/groups\//);
    await settled(page);
    const groupId = page.url().split('/').at(-1)!;

    const accountForm = page.getByRole('form', { name: 'New account in this group' });
    await accountForm.getByLabel('Name').fill('Customer shop');
    await accountForm.getByLabel('Website domain').fill('https://shop.customer.example/');
    await accountForm.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('rowheader', { name: 'Customer shop' }).waitFor();
    const accounts = await call(t.app, 'GET', `/api/v1/accounts?group_id=${groupId}`, { token: tenant.tokens.partner });
    expect(accounts.body.data.map((a: { name: string; domain: string }) => [a.name, a.domain])).toEqual([['Customer shop', 'shop.customer.example']]);
    const group = await call(t.app, 'GET', `/api/v1/groups/${groupId}`, { token: tenant.tokens.partner });
    expect(group.body).toMatchObject({ name: 'Agency customer', max_pageviews_per_month: 50000, max_unique_visitors_per_month: null });

    await page.getByRole('link', { name: 'Customer shop' }).click();
    await settled(page);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Customer shop');
    await context.close();
  });

  it('shows an AI suggestion with its confidence and source, and reverts it', async () => {
    const token = tenant.tokens.account;
    await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token, body: { account: { ai_features: { auto_categorise: true } } } });
    const item = await call(t.app, 'POST', '/api/v1/storage-items', { token, body: { storage_item: { name: '_fbp' } } });
    expect(item.status).toBe(201);
    for (let i = 0; i < 200; i++) {
      const now = await call(t.app, 'GET', `/api/v1/storage-items/${item.body.data.id}`, { token });
      if (now.body.data.status !== 'processing') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'AI suggestions' }).click();
    await settled(page);
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^_fbp/ }) }).filter({ hasText: 'Category' });
    await row.waitFor();
    // The page shows the source the API reports (the registry, for Meta's _fbp).
    const actions = await call(t.app, 'GET', '/api/v1/ai-actions', { token, query: { actionable_id: item.body.data.id, action_type: 'auto_categorise' } });
    const source: string = actions.body.data[0].source;
    expect(source).toMatch(/^registry: /);
    expect(await row.textContent()).toContain(source.slice(0, 40));
    expect(await row.textContent()).toMatch(/\d+%/);
    await row.getByRole('button', { name: 'Revert this change to _fbp' }).click();
    await page.locator('.note').first().waitFor();
    expect(await page.locator('.note').allTextContents()).toEqual(['Change reverted.']);
    const after = await call(t.app, 'GET', `/api/v1/storage-items/${item.body.data.id}`, { token });
    expect(after.body.data.category_id).toBeNull();

    // The settings: an empty threshold is not sent (it would approve everything); a value is, and said so.
    const settings = page.getByRole('form', { name: 'AI settings' });
    const threshold = settings.getByLabel('Approve from this confidence (%)');
    const before = (await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token })).body.ai_features.auto_approve_threshold;
    await threshold.fill('');
    await settings.getByRole('button', { name: 'Save AI settings' }).click();
    expect(await threshold.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true);
    expect((await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token })).body.ai_features.auto_approve_threshold).toBe(before);
    await threshold.fill('85');
    await settings.getByRole('button', { name: 'Save AI settings' }).click();
    await page.getByText('AI settings saved.').waitFor();
    expect((await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token })).body.ai_features.auto_approve_threshold).toBe(0.85);
    expect(await page.getByText('Change reverted.').count()).toBe(0);
    await context.close();
  });

  it('filters storage items by who added them, rejects an AI suggestion showing why it was made, and accepts one', async () => {
    const token = tenant.tokens.account;
    const made = await call(t.app, 'POST', '/api/v1/storage-items', { token, body: { storage_item: { name: 'zq_unknown_thing' } } });
    expect(made.status).toBe(201);
    const suggestion = await insertAiAction(t.services.db, {
      account_id: tenant.account.id, action_type: 'auto_categorise', actionable_type: 'StorageItem', actionable_id: made.body.data.id,
      suggested_params: { category: 'analytics' }, previous_params: {}, confidence: 0.42, status: 'suggested',
      source: 'model: logistic regression on the registry and the cookie databases; declined: not confident enough to decide',
    });
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Storage items' }).click();
    await settled(page);
    const filters = page.getByRole('group', { name: 'Filters' });
    const byApi = await call(t.app, 'GET', '/api/v1/storage-items', { token, query: { created_by: 'api', sort: 'name', limit: '100' } });
    expect(byApi.body.data.length).toBeGreaterThan(0);
    await filters.getByLabel('Added by').selectOption({ label: 'An API token' });
    await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length === n, byApi.body.data.length);
    expect(await page.locator('tbody th code').allTextContents()).toEqual(byApi.body.data.map((i: { name: string }) => i.name));
    expect(new Set(await page.locator('tbody tr td:nth-child(7)').allTextContents())).toEqual(new Set(['An API token']));
    await filters.getByLabel('Added by').selectOption({ label: 'A scan' });
    await page.getByText('No storage items match.').waitFor();

    await page.getByRole('navigation', { name: 'Account pages' }).getByRole('link', { name: 'AI suggestions' }).click();
    await settled(page);
    // (The AI, switched on by an earlier test, may have made a suggestion of its own for the item.)
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^zq_unknown_thing/ }) }).filter({ hasText: '42%' });
    await row.waitFor();
    expect(await row.textContent()).toContain('a model trained on the registry and the cookie databases guessed from the name');
    expect(await row.textContent()).toContain('Suggested');
    // With the keyboard: focus the button and press Enter.
    await row.getByRole('button', { name: 'Reject the suggestion for zq_unknown_thing' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Suggestion rejected.').waitFor();
    await row.getByText('Rejected').waitFor();
    expect(await row.getByRole('button').count()).toBe(0);
    const after = await call(t.app, 'GET', `/api/v1/ai-actions/${suggestion.id}`, { token });
    expect(after.body.data.status).toBe('rejected');

    // Accepting another: the item takes the category, the action is applied and can be reverted.
    const other = await call(t.app, 'POST', '/api/v1/storage-items', { token, body: { storage_item: { name: 'zq_other_thing' } } });
    const second = await insertAiAction(t.services.db, {
      account_id: tenant.account.id, action_type: 'auto_categorise', actionable_type: 'StorageItem', actionable_id: other.body.data.id,
      suggested_params: { category: 'analytics' }, previous_params: {}, confidence: 0.43, status: 'suggested',
      source: 'model: logistic regression on the registry and the cookie databases; declined: not confident enough to decide',
    });
    await page.getByRole('navigation', { name: 'Account pages' }).getByRole('link', { name: 'Storage items' }).click();
    await page.getByRole('navigation', { name: 'Account pages' }).getByRole('link', { name: 'AI suggestions' }).click();
    await settled(page);
    const accepted = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^zq_other_thing/ }) }).filter({ hasText: '43%' });
    await accepted.getByRole('button', { name: 'Accept the suggestion for zq_other_thing' }).click();
    await page.getByText('Suggestion accepted.').waitFor();
    await accepted.getByText('Applied').waitFor();
    const applied = (await call(t.app, 'GET', `/api/v1/ai-actions/${second.id}`, { token })).body.data;
    expect(applied).toMatchObject({ status: 'applied', previous_params: { category_id: null, status: 'draft' } });
    const moved = (await call(t.app, 'GET', `/api/v1/storage-items/${other.body.data.id}`, { token })).body.data;
    expect(moved).toMatchObject({ category_id: applied.suggested_params.category_id, status: 'in_review' });
    const category = (await call(t.app, 'GET', `/api/v1/categories/${moved.category_id}`, { token })).body.data;
    expect(await accepted.textContent()).toContain(`category: ${category.name}`);
    expect(await accepted.getByRole('button', { name: 'Accept the suggestion for zq_other_thing' }).count()).toBe(0);
    await accepted.getByRole('button', { name: 'Revert this change to zq_other_thing' }).waitFor();
    await context.close();
  });

  it('edits the banner, previews the real script with the unsaved change, and saves it', async () => {
    const { context, page, preview } = await bannerEditor();
    await page.getByLabel('Title', { exact: true }).fill('Cookies at the browser shop');
    await preview.getByText('Cookies at the browser shop').waitFor();
    const before = await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`);
    expect(JSON.stringify(before.body)).not.toContain('Cookies at the browser shop');
    await page.getByRole('button', { name: 'Save banner' }).click();
    // It says when visitors get the change: what the script's Cache-Control lets browsers keep.
    const script = await call(t.app, 'GET', `/widget/${tenant.account.id}.js`);
    const maxAge = Number(/max-age=(\d+)/.exec(String(script.headers['cache-control']))![1]);
    await page.getByText(`The banner was saved. Websites get it within ${maxAge / 60} minutes.`, { exact: true }).waitFor();
    const after = await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`);
    expect(JSON.stringify(after.body)).toContain('Cookies at the browser shop');
    // An emptied text goes back to the built-in words.
    await page.getByLabel('Title', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save banner' }).click();
    await expect.poll(async () => JSON.stringify((await call(t.app, 'GET', '/api/v1/banner', { token: tenant.tokens.account })).body)).not.toContain('Cookies at the browser shop');
    await page.getByLabel('Title', { exact: true }).fill('Cookies at the browser shop');
    await page.getByRole('button', { name: 'Save banner' }).click();
    await expect.poll(async () => JSON.stringify((await call(t.app, 'GET', '/api/v1/banner', { token: tenant.tokens.account })).body)).toContain('Cookies at the browser shop');
    // Another language's texts, previewed in that language.
    await page.getByLabel('Language of the texts').selectOption('de');
    await preview.getByRole('button', { name: 'Alle akzeptieren' }).first().waitFor();
    await page.getByLabel('Title', { exact: true }).fill('Cookies im Laden');
    await preview.getByText('Cookies im Laden').waitFor();
    // The frame is sandboxed: the banner in it cannot reach the dashboard's storage, where the token is.
    expect(await page.locator('iframe[title="Banner preview"]').getAttribute('sandbox')).toBe('allow-scripts');
    // An account whose language has a region (de-CH) and no texts of its own saves its look, then texts of its region.
    const token = tenant.tokens.account;
    const language = (await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token })).body.default_language;
    await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token, body: { account: { default_language: 'de-CH' } } });
    await page.reload();
    await settled(page);
    expect(await page.getByLabel('Language of the texts').inputValue()).toBe('de-CH');
    const layout = (await call(t.app, 'GET', '/api/v1/banner', { token })).body.data.layout;
    await page.getByLabel('Layout').selectOption('cloud');
    await page.getByRole('button', { name: 'Save banner' }).click();
    await page.getByText('The banner was saved').waitFor();
    expect((await call(t.app, 'GET', '/api/v1/banner', { token })).body.data.layout).toBe('cloud');
    // And it can have texts of that region.
    await page.getByLabel('Title', { exact: true }).fill('Guetzli im Laden');
    await page.getByRole('button', { name: 'Save banner' }).click();
    await expect.poll(async () => (await call(t.app, 'GET', '/api/v1/banner', { token })).body.data.translations['de-CH']).toEqual({ title: 'Guetzli im Laden' });
    await call(t.app, 'PATCH', '/api/v1/banner', { token, body: { banner: { layout, translations: { 'de-CH': null } } } });
    await call(t.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token, body: { account: { default_language: language } } });
    await context.close();
  });

  it('keeps the texts typed in one language when switching to another, and saves both', async () => {
    const { context, page } = await bannerEditor();
    const token = tenant.tokens.account;
    await page.getByLabel('Language of the texts').selectOption('fr');
    await page.getByLabel('Title', { exact: true }).fill('Vos cookies');
    await page.getByLabel('Language of the texts').selectOption('it');
    await page.getByLabel('Title', { exact: true }).fill('I vostri cookie');
    await page.getByLabel('Language of the texts').selectOption('fr');
    expect(await page.getByLabel('Title', { exact: true }).inputValue()).toBe('Vos cookies');
    await page.getByRole('button', { name: 'Save banner' }).click();
    await page.getByText('The banner was saved').waitFor();
    const { translations } = (await call(t.app, 'GET', '/api/v1/banner', { token })).body.data;
    expect(translations.fr).toEqual({ title: 'Vos cookies' });
    expect(translations.it).toEqual({ title: 'I vostri cookie' });
    await call(t.app, 'PATCH', '/api/v1/banner', { token, body: { banner: { translations: { fr: null, it: null } } } });
    await context.close();
  });

  it('edits every text of the banner, the less used ones under More texts, showing the built-in words where one is empty', async () => {
    const { context, page, preview } = await bannerEditor();
    const token = tenant.tokens.account;
    const language = (await call(t.app, 'GET', `/api/v1/accounts/${tenant.account.id}`, { token })).body.default_language;
    const before = (await call(t.app, 'GET', '/api/v1/banner', { token })).body.data.translations[language];
    const manage = page.getByLabel('"Manage preferences" button');
    expect(await manage.isVisible()).toBe(false);
    await page.getByText('More texts').click();
    expect(await manage.getAttribute('placeholder')).toBe('Manage preferences');
    await manage.fill('Let me choose');
    await preview.getByRole('button', { name: 'Let me choose' }).waitFor();
    await page.getByLabel('Before the services of a category').fill('Who gets the data:');
    await page.getByRole('button', { name: 'Save banner' }).click();
    await page.getByText('The banner was saved').waitFor();
    expect((await call(t.app, 'GET', '/api/v1/banner', { token })).body.data.translations[language]).toEqual({ ...before, manage: 'Let me choose', services: 'Who gets the data:' });
    // Opened again, the section shows itself, since texts of its own are in it; another language's placeholders are its words.
    await page.reload();
    await settled(page);
    await manage.waitFor();
    expect(await manage.inputValue()).toBe('Let me choose');
    await page.getByLabel('Language of the texts').selectOption('de');
    expect(await page.getByLabel('"Manage preferences" button').getAttribute('placeholder')).toBe('Einstellungen verwalten');
    await call(t.app, 'PATCH', '/api/v1/banner', { token, body: { banner: { translations: { [language]: { manage: null, services: null } } } } });
    await context.close();
  });

  it('previews the newest change when an older preview is answered last', async () => {
    const { context, page, preview } = await bannerEditor();
    // The first preview asked after this is answered only once the second has been.
    // Each wait says what it waited for when it runs out, instead of the whole test timing out silently.
    const signal = (what: string) => {
      let done!: () => void;
      const promise = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`never happened: ${what}`)), 10_000);
        done = () => { clearTimeout(timer); resolve(); };
      });
      promise.catch(() => {});
      return { promise, done };
    };
    const [firstAsked, firstAnswered, secondAnswered] = [signal('the first preview asked'), signal('the first preview answered'), signal('the second preview answered')];
    let release!: () => void;
    const firstReleased = { promise: new Promise<void>((resolve) => { release = resolve; }), done: () => release() };
    let asked = 0;
    await page.route(/\/api\/v1\/banner\/preview(\?|$)/, async (route) => {
      const n = ++asked;
      if (n === 1) firstAsked.done();
      const response = await route.fetch();
      if (n === 1) await firstReleased.promise;
      await route.fulfill({ response });
      (n === 1 ? firstAnswered : secondAnswered).done();
    });
    await page.getByLabel('Title', { exact: true }).fill('The older title');
    await firstAsked.promise;
    await page.getByLabel('Title', { exact: true }).fill('The newer title');
    await secondAnswered.promise;
    await preview.getByText('The newer title').waitFor();
    firstReleased.done();
    await firstAnswered.promise;
    // The older answer came too late: it never replaces what the frame shows.
    await expect(preview.getByText('The older title').waitFor({ timeout: 3000 })).rejects.toThrow();
    expect(await preview.getByText('The newer title').count()).toBe(1);
    await context.close();
  });

  it('lists the scans, opens a report with what was set before consent, and says why a scan cannot start', async () => {
    await finishedScan('scan');
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Scans' }).click();
    await settled(page);
    const row = page.getByRole('row', { name: new RegExp(tenant.account.domain) }).first();
    expect(await row.locator('td').first().textContent()).toBe('Done');
    await row.getByRole('link').click();
    await settled(page);
    const before = page.getByRole('region', { name: 'Set before consent' });
    expect(await before.getByRole('rowheader').first().textContent()).toBe('_ads_scan');
    expect(await before.locator('td').nth(1).textContent()).toBe('Advertising scan');

    await page.getByRole('link', { name: 'All scans' }).click();
    await settled(page);
    await page.getByLabel('Starting page').fill('https://elsewhere.example.org/');
    await page.getByRole('button', { name: 'Start scan' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/domain/i);
    await context.close();
  });

  it('shows the items without a category set before consent first and in red, in the report and the list of scans', async () => {
    await finishedScan('hotjar', { uncategorised: true });
    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    await page.getByRole('link', { name: 'Scans' }).click();
    await settled(page);
    const red = 'rgb(164, 38, 44)';
    const colour = (locator: ReturnType<Page['locator']>) => locator.evaluate((node) => getComputedStyle(node).color);
    // The newest scan is listed first: its counts fail, in red, the uncategorised one first.
    const counts = page.getByRole('region', { name: 'Scans' }).locator('tbody tr').first().locator('td').nth(3);
    expect(await counts.textContent()).toBe('Fails: 1 without a category, 1 refusable');
    expect(await colour(counts.locator('strong'))).toBe(red);
    await page.getByRole('region', { name: 'Scans' }).locator('tbody tr').first().getByRole('link').click();
    await settled(page);
    const heading = page.getByRole('heading', { name: 'Set before consent' });
    // What follows the heading first is the failure of the item without a category, in red.
    const next = heading.locator('xpath=following-sibling::*[1]');
    expect(await next.textContent()).toMatch(/^1 item without a category was set before visitors chose\. Nothing holds it back/);
    expect(await colour(next)).toBe(red);
    const uncategorised = page.getByRole('region', { name: 'Without a category' });
    expect(await uncategorised.getByRole('rowheader').allTextContents()).toEqual(['_hjSessionUser_hotjar']);
    expect(await colour(uncategorised.getByRole('rowheader'))).toBe(red);
    const refusable = page.getByRole('region', { name: 'Set before consent' });
    expect(await refusable.getByRole('rowheader').allTextContents()).toEqual(['_ads_hotjar']);
    expect(await uncategorised.evaluate((a, b) => !!(a.compareDocumentPosition(b!) & Node.DOCUMENT_POSITION_FOLLOWING), await refusable.elementHandle())).toBe(true);
    // The pass sentence is not shown while anything fails.
    expect(await page.getByText('Nothing without a category').count()).toBe(0);
    await context.close();
  });

  it('says the demo is a demo, and removes from a scan\'s report the examples the scan of the real site did not find', async () => {
    const demo = await seedDemo(t.services.db);
    const token = demo.tokens.account;
    // A scan of the owner's real site, stored as the runner stores one: it found one cookie, none of the examples.
    const real = await call(t.app, 'POST', '/api/v1/storage-items', { token, body: { storage_item: { name: 'real_session', domain: 'bakery.example' } } });
    const startedAt = new Date();
    await t.services.db.updateTable('storage_items').set({ last_seen_at: new Date(startedAt.getTime() + 1000) }).where('id', '=', real.body.data.id).execute();
    const id = newId();
    await t.services.db.insertInto('scans').values({
      id, account_id: demo.account.id, owner_id: demo.account.id, status: 'completed', starting_url: 'https://bakery.example/', max_pages: 5, pages_scanned: 1, storage_items_found: 1,
      started_at: startedAt, finished_at: new Date(startedAt.getTime() + 2000),
      report: JSON.stringify({
        pages: [{ url: 'https://bakery.example/', status: 200, time_ms: 90, pass: 'before_consent', error: null }],
        storage_items: [{
          name: 'real_session', domain: 'bakery.example', storage_type: 'cookie', storage_item_id: real.body.data.id, first_seen_url: 'https://bakery.example/',
          expires_at: null, duration: 'session', path: '/', secure: true, http_only: true, same_site: 'Lax', partitioned: false, set_before_consent: false, set_by: null,
        }],
        refused: [],
        consent_banner: false,
      }),
    }).execute();
    const { context, page } = await newPage();
    await signIn(page, demo.user.email, demo.user.password);
    expect(await page.getByRole('note').textContent()).toMatch(/^This is a demo account\. Its categories and storage items \(such as _ga and _fbp\) are examples/);
    await page.goto(`/accounts/${demo.account.id}/scans/${id}`);
    await settled(page);
    const unseen = page.getByRole('region', { name: 'Not found by this scan' });
    expect((await unseen.getByRole('rowheader').allTextContents()).sort()).toEqual(demo.storage_items.map((item) => item.name).sort());
    const asked: string[] = [];
    page.once('dialog', (dialog) => { asked.push(dialog.message()); void dialog.accept(); });
    await page.getByRole('button', { name: `Remove these ${demo.storage_items.length} items` }).click();
    await page.getByText(`${demo.storage_items.length} storage items were removed.`).waitFor();
    expect(asked).toEqual([`Remove ${demo.storage_items.length} storage items this scan did not find? This cannot be undone.`]);
    await unseen.waitFor({ state: 'detached' });
    const left = await call(t.app, 'GET', '/api/v1/storage-items', { token });
    expect(left.body.data.map((item: { name: string }) => item.name)).toEqual(['real_session']);
    await context.close();
  });

  it('charts the statistics of the account and of a group, with the same figures as tables', async () => {
    const token = tenant.tokens.account;
    const category = await call(t.app, 'POST', '/api/v1/categories', { token, body: { category: { name: 'Charted marketing' } } });
    const choices = [
      { accept_type: 'all', gpc: false }, { accept_type: 'all', gpc: true },
      { accept_type: 'custom', gpc: false, rejected_categories: [category.body.data.id] },
    ];
    for (const [i, choice] of choices.entries()) {
      const { gpc, ...user_preferences } = choice;
      const res = await call(t.app, 'POST', '/api/v1/consents', {
        token, headers: gpc ? { 'sec-gpc': '1' } : {},
        body: { consent: { session_id: `charted-${i}`, user_preferences } },
      });
      expect(res.status).toBe(201);
    }
    // The visitors the consents counted are written (as every few seconds), so that the page reads the same.
    await t.services.visits.flush();
    const stats = (await call(t.app, 'GET', '/api/v1/stats', { token })).body;
    const today = stats.data.at(-1);
    expect(today.consents).toBeGreaterThanOrEqual(3);

    const { context, page } = await newPage();
    await signIn(page, tenant.admin.email, PASSWORD);
    const figures = page.locator('.figures');
    await figures.waitFor();
    expect(await figures.locator('dd').first().textContent()).toMatch(new RegExp(`^${stats.totals.consents}`));
    const chart = page.getByRole('img', { name: /^Consents by choice: / });
    expect(await chart.getAttribute('aria-label')).toBe(`Consents by choice: ${stats.totals.consents} consents in 30 periods`);
    // The text alternative opens with the keyboard and holds the API's figures.
    await page.getByText('Consents by choice as a table').focus();
    await page.keyboard.press('Enter');
    const row = page.getByRole('region', { name: 'Consents by choice' }).getByRole('row').filter({ has: page.getByRole('rowheader', { name: today.start }) });
    expect(await row.locator('td').allTextContents())
      .toEqual([today.accept_types.all, today.accept_types.custom, today.accept_types.necessary, today.consents].map(String));
    await page.getByText('Acceptance by category as a table').click();
    const charted = stats.totals.categories.find((c: { name: string }) => c.name === 'Charted marketing');
    expect(charted).toMatchObject({ accepted: 2, rejected: 1 });
    const categoryRow = page.getByRole('region', { name: 'Acceptance by category' }).getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Charted marketing' }) });
    expect(await categoryRow.locator('td').allTextContents()).toEqual(['2', '1', '66.7%']);
    expect(await page.locator('.figures dd').nth(3).textContent()).toBe(`${Math.round(stats.totals.gpc_share * 1000) / 10}%`);
    // The consent rate says what it is beside the figure: visitors who chose, of those shown the banner.
    expect(stats.totals.consent_rate).toBeLessThanOrEqual(1);
    expect(await page.locator('.figures dd').nth(2).locator('.figure-note').textContent())
      .toBe(`${stats.totals.consenting_visitors} of ${stats.totals.unique_visitors} visitors shown the banner chose, each counted once`);

    // Grouped by week: fewer bars, the same total.
    await page.getByRole('group', { name: 'Statistics period' }).getByLabel('Grouped').selectOption('week');
    await page.waitForFunction(() => !document.querySelector('.stats .loading'));
    await page.getByRole('img', { name: /^Consents by choice: / }).and(page.locator(`[aria-label$="periods"]:not([aria-label$=" 30 periods"])`)).waitFor();
    await context.close();

    const partner = await newPage();
    await partner.page.goto('/sign-in');
    await partner.page.getByRole('button', { name: 'API token' }).click();
    await partner.page.getByRole('textbox', { name: 'API token' }).fill(tenant.tokens.partner);
    await partner.page.getByRole('button', { name: 'Sign in with token' }).click();
    await partner.page.waitForURL(`${t.url}/partner`);
    await partner.page.goto(`/partner/groups/${tenant.group.id}`);
    await settled(partner.page);
    const groupStats = (await call(t.app, 'GET', `/api/v1/groups/${tenant.group.id}/stats`, { token: tenant.tokens.partner })).body;
    await partner.page.locator('.figures').waitFor();
    expect(await partner.page.locator('.figures dd').first().textContent()).toMatch(new RegExp(`^${groupStats.totals.consents}`));
    const accountRow = partner.page.getByRole('region', { name: 'Accounts of the group in this period' })
      .getByRole('row').filter({ has: partner.page.getByRole('rowheader', { name: tenant.account.name }) });
    expect(await accountRow.locator('td').first().textContent()).toBe(String(stats.totals.consents));
    await partner.context.close();
  });

  it('passes axe-core on every page, at 1280 and 390 pixels wide', async () => {
    const token = tenant.tokens.account;
    const consent = await call(t.app, 'POST', '/api/v1/consents', {
      token, body: { consent: { session_id: 'visitor-1', user_preferences: { accept_type: 'all' }, url: 'https://browser.example.com/' } },
    });
    const { context, page } = await newPage();
    const visit = async (path: string, name: string) => {
      await page.goto(path);
      await inspect(page, name);
    };
    // The check itself finds what it is there to find: a button without a name is critical.
    await page.goto('/sign-in');
    await settled(page);
    await page.evaluate(() => document.querySelector('main')!.append(document.createElement('button')));
    expect((await seriousViolations(page)).join('\n')).toMatch(/^critical button-name/);

    await visit('/sign-in', 'sign-in');
    await visit('/sign-up', 'sign-up');
    await visit('/forgot-password', 'forgot-password');
    await visit('/reset-password/some-token', 'reset-password');
    await visit('/invitations/some-secret', 'accept-invitation');

    await signIn(page, tenant.admin.email, PASSWORD);
    const account = `/accounts/${tenant.account.id}`;
    await visit(account, 'overview');
    // The charts' tables, opened.
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
    await inspect(page, 'overview-tables');
    await visit(`${account}/categories`, 'categories');
    await visit(`${account}/storage-items`, 'storage-items');
    await visit(`${account}/ai`, 'ai');
    await visit(`${account}/consents`, 'consents');
    await visit(`${account}/consents/${consent.body.data.id}`, 'consent');
    await visit(`${account}/members`, 'members');
    await visit(`${account}/banner`, 'banner');
    const scan = await finishedScan('axe', { uncategorised: true });
    await visit(`${account}/scans`, 'scans');
    await visit(`${account}/scans/${scan}`, 'scan');
    await visit('/tokens', 'tokens');
    await visit('/password', 'change-password');
    await visit('/accounts', 'accounts');
    await visit('/nowhere', 'not-found');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in$/);
    await page.getByRole('button', { name: 'API token' }).click();
    await page.getByRole('textbox', { name: 'API token' }).fill(tenant.tokens.partner);
    await page.getByRole('button', { name: 'Sign in with token' }).click();
    await page.waitForURL(`${t.url}/partner`);
    await visit('/partner', 'partner-groups');
    await visit(`/partner/groups/${tenant.group.id}`, 'partner-group');
    await context.close();
  }, 120_000);
});
