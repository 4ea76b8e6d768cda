/**
 * The scanner through the API, in real Chromium, against a website served on loopback: what it
 * finds and how, the storage items it writes (and never twice), the AI taking them up, the checks
 * on what may be scanned, cancelling, and scheduled rescans.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { OWN_COOKIE_DESCRIPTIONS } from '../../../banner/src/own-cookie.ts';
import { seedDemo } from '../../../src/demo.ts';
import { call, ENGINE, startApp, type TestApp } from '../../helpers/app.ts';
import { describeBrowser } from '../../helpers/browser.ts';
import { startScanSite, type ScanSite } from '../../helpers/scan-site.ts';
import { createTenant, type Tenant } from '../../helpers/tenants.ts';

let t: TestApp;
let site: ScanSite;
let tenant: Tenant;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const invalid = (...messages: string[]) => ({ errors: messages.map((error) => ({ error })) });

const api = (method: string, url: string, token: string, body?: unknown) => call(t.app, method, url, { token, body });

async function siteTenant(label: string, aiFeatures?: Record<string, unknown>): Promise<Tenant> {
  const created = await createTenant(t.services, label);
  const res = await api('PATCH', `/api/v1/accounts/${created.account.id}`, created.tokens.partner, {
    account: { domain: '127.0.0.1', ...(aiFeatures && { ai_features: aiFeatures }) },
  });
  expect(res.status).toBe(200);
  return created;
}

/** Polls the scan until it has finished one way or another. */
async function finished(token: string, id: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api('GET', `/api/v1/scans/${id}`, token);
    expect(res.status).toBe(200);
    if (!['queued', 'in_progress'].includes(res.body.data.status)) return res.body.data;
    if (Date.now() > deadline) throw new Error(`scan ${id} still ${res.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const itemsOf = (accountId: string) =>
  t.services.db.selectFrom('storage_items').selectAll().where('account_id', '=', accountId).orderBy('name').orderBy('domain').execute();

describeBrowser(`scans (${ENGINE})`, () => {
  beforeAll(async () => {
    site = await startScanSite();
    t = await startApp({ env: { SCAN_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_MAX: '100000', SCAN_PAGE_TIMEOUT_MS: '10000' } });
    tenant = await siteTenant('Site', { auto_categorise: true });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it('finds every cookie and storage key with its attributes, flags what comes before consent, and writes storage items', async () => {
    const token = tenant.tokens.admin;
    // What the account already had: a cookie typed in without its domain, a wildcard, a required category.
    const necessary = await api('POST', '/api/v1/categories', token, { category: { name: 'Necessary', required: true } });
    const analytics = await api('POST', '/api/v1/categories', token, { category: { name: 'Analytics' } });
    const handMade = await api('POST', '/api/v1/storage-items', token, {
      storage_item: { name: 'fp_session', description: 'Keeps the visitor signed in', category_id: necessary.body.data.id, duration: 'until the tab closes' },
    });
    const wildcard = await api('POST', '/api/v1/storage-items', token, {
      storage_item: { name: '_ga_*', description: 'Google Analytics session', category_id: analytics.body.data.id },
    });
    expect([handMade.status, wildcard.status]).toEqual([201, 201]);

    const res = await api('POST', '/api/v1/scans', token, { scan: { starting_url: `${site.url}/#top` } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      status: 'queued',
      scheduled: false,
      starting_url: `${site.url}/`,
      max_pages: 50,
      crawl_subdomains: false,
      pages_scanned: 0,
      storage_items_found: 0,
      new_storage_items: 0,
      started_at: null,
      finished_at: null,
      error: null,
      report: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });

    const scan = await finished(token, res.body.data.id);
    expect(scan.error).toBeNull();
    expect(scan.status).toBe('completed');
    expect(scan.started_at).toMatch(ISO);
    expect(scan.finished_at).toMatch(ISO);

    // Pages: the linked ones, the one only the sitemap lists, the redirect; never the off-site link.
    const before = scan.report.pages.filter((p: { pass: string }) => p.pass === 'before_consent');
    expect(before.map((p: { url: string }) => p.url.slice(site.url.length)).sort()).toEqual(
      ['/', '/about', '/blog', '/contact', '/go-internal', '/hidden', '/products', '/products/1'],
    );
    expect(before.every((p: { status: number; time_ms: number }) => p.status === 200 && p.time_ms >= 0)).toBe(true);
    expect(scan.pages_scanned).toBe(8);
    expect(site.hits.offSite).toEqual([]);
    expect(scan.report.consent_banner).toBe(true);
    expect(scan.report.pages.filter((p: { pass: string }) => p.pass === 'after_consent').length).toBe(8);
    expect(scan.report.refused).toEqual([]);

    const home = `${site.url}/`;
    const third = site.thirdParty;
    const cookie = { storage_type: 'cookie', path: '/', secure: false, http_only: false, same_site: 'Lax', partitioned: false, set_before_consent: true };
    const storage = { path: '/', expires_at: null, secure: false, http_only: false, same_site: null, partitioned: false, set_before_consent: true };
    const expected: Array<Record<string, unknown> & { storage_type: string; name: string }> = [
      { ...cookie, name: 'fp_session', domain: '127.0.0.1', duration: 'session', http_only: true, same_site: 'Strict', first_seen_url: home, set_by: home },
      { ...cookie, name: 'js_pref', domain: '127.0.0.1', duration: '1 year', first_seen_url: home, set_by: `${site.url}/js/app.js` },
      { ...cookie, name: '_fbp', domain: '127.0.0.1', duration: '90 days', first_seen_url: home, set_by: `${third}/tracker.js` },
      { ...cookie, name: 'tp_script', domain: '127.0.0.2', duration: '30 days', secure: true, same_site: 'None', first_seen_url: home, set_by: `${third}/tracker.js` },
      { ...cookie, name: 'tp_frame', domain: '127.0.0.2', duration: '1 day', secure: true, same_site: 'None', first_seen_url: home, set_by: `${third}/frame.html` },
      { ...cookie, name: 'tp_part', domain: '127.0.0.2', duration: '1 hour', secure: true, same_site: 'None', partitioned: true, first_seen_url: home, set_by: `${third}/frame.html` },
      { ...cookie, name: 'hidden_cookie', domain: '127.0.0.1', duration: '7 days', first_seen_url: `${site.url}/hidden`, set_by: `${site.url}/hidden` },
      { ...cookie, name: 'private_target', domain: '127.0.0.4', duration: 'session', first_seen_url: `${site.url}/go-internal`, set_by: `${site.privateTarget}/admin` },
      { ...storage, name: 'ls_theme', domain: '127.0.0.1', storage_type: 'local_storage', duration: 'persistent', first_seen_url: home, set_by: `${site.url}/js/app.js` },
      { ...storage, name: 'tp_ls', domain: '127.0.0.2', storage_type: 'local_storage', duration: 'persistent', first_seen_url: home, set_by: `${third}/frame.html` },
      { ...storage, name: 'ss_cart', domain: '127.0.0.1', storage_type: 'session_storage', duration: 'session', first_seen_url: `${site.url}/products/1`, set_by: `${site.url}/products/1` },
      // Unlocked by "Accept all": only the second pass sees them.
      { ...cookie, name: 'consentry_consent', domain: '127.0.0.1', duration: '1 year', set_before_consent: false, first_seen_url: home, set_by: home },
      // Max-Age is two years; Chromium keeps a cookie at most 400 days.
      { ...cookie, name: '_ga_TEST123', domain: '127.0.0.1', duration: '400 days', set_before_consent: false, first_seen_url: home, set_by: `${site.url}/js/gated.js` },
      { ...storage, name: 'gated_ls', domain: '127.0.0.1', storage_type: 'local_storage', duration: 'persistent', set_before_consent: false, first_seen_url: home, set_by: `${site.url}/js/gated.js` },
    ];
    const key = (item: { storage_type: string; name: string }) => `${item.storage_type}:${item.name}`;
    const found = [...scan.report.storage_items].sort((a, b) => key(a).localeCompare(key(b)));
    expect(found.map(({ expires_at, storage_item_id, ...rest }: Record<string, unknown>) => rest))
      .toEqual(expected.map(({ expires_at, ...rest }) => rest).sort((a, b) => key(a).localeCompare(key(b))));
    for (const item of found) {
      if (item.storage_type !== 'cookie' || item.duration === 'session') expect(item.expires_at).toBeNull();
      else expect(item.expires_at).toMatch(ISO);
    }
    expect(scan.storage_items_found).toBe(14);

    // Storage items: the hand-made one matched (its domain filled, its words kept), the wildcard
    // covers _ga_TEST123, the other twelve are new, created by the scan.
    const items = await itemsOf(tenant.account.id);
    expect(scan.new_storage_items).toBe(12);
    expect(items).toHaveLength(14);
    const stored = new Map(items.map((item) => [`${item.storage_type}:${item.name}`, item]));
    const session = stored.get('cookie:fp_session')!;
    expect(session).toMatchObject({ id: handMade.body.data.id, domain: '127.0.0.1', duration: 'until the tab closes', created_by: 'user' });
    expect(session.last_seen_at).toBeInstanceOf(Date);
    expect(stored.has('cookie:_ga_TEST123')).toBe(false);
    expect(found.find((item: { name: string }) => item.name === '_ga_TEST123').storage_item_id).toBe(wildcard.body.data.id);
    const part = stored.get('cookie:tp_part')!;
    expect(part).toMatchObject({ domain: '127.0.0.2', partitioned: true, same_site: 'None', duration: '1 hour', created_by: 'scan', is_wildcard_cookie: false });
    expect(stored.get('session_storage:ss_cart')).toMatchObject({ domain: '127.0.0.1', duration: 'session', created_by: 'scan' });
    for (const item of found) expect(item.storage_item_id).toBe(stored.get(key(item))?.id ?? wildcard.body.data.id);
    // Who wrote each new item is kept for the AI, not shown by the API; a person's item is left as it was.
    expect(stored.get('cookie:_fbp')!.set_by).toBe(`${third}/tracker.js`);
    expect(stored.get('local_storage:ls_theme')!.set_by).toBe(`${site.url}/js/app.js`);
    expect(session.set_by).toBeNull();
    expect((await api('GET', `/api/v1/storage-items/${stored.get('cookie:_fbp')!.id}`, token)).body.data).not.toHaveProperty('set_by');

    // The new items went to the AI as hand-made ones do: _fbp is Meta's, a marketing cookie.
    await vi.waitUntil(async () => (await itemsOf(tenant.account.id)).every((item) => item.status !== 'processing'), {
      timeout: 30_000, interval: 100,
    });
    const fbp = (await api('GET', `/api/v1/storage-items/${stored.get('cookie:_fbp')!.id}`, token)).body.data;
    expect(fbp.category_id).not.toBeNull();
    const actions = await api('GET', '/api/v1/ai-actions', token, undefined);
    expect(actions.body.data.some((a: { actionable_id: string; action_type: string }) => a.actionable_id === fbp.id && a.action_type === 'auto_categorise')).toBe(true);
    const category = (await api('GET', `/api/v1/categories/${fbp.category_id}`, token)).body.data;
    expect(category.required).toBe(false);

    // Violations: before consent and in a category a visitor may refuse, as categories are now.
    const again = (await api('GET', `/api/v1/scans/${scan.id}`, token)).body.data;
    const violations = again.report.violations.map((v: { name: string }) => v.name);
    expect(violations).toContain('_fbp');
    expect(violations).not.toContain('fp_session'); // required category
    expect(violations).not.toContain('_ga_TEST123'); // analytics, but only after consent
    expect(again.report.violations.find((v: { name: string }) => v.name === '_fbp')).toEqual({
      name: '_fbp', domain: '127.0.0.1', storage_type: 'cookie', storage_item_id: fbp.id,
      category_id: category.id, category: category.name, first_seen_url: home,
    });
  }, 120_000);

  it('counts the items without a category set before consent first, as a failure, and the list says so', async () => {
    // No AI: what the scan finds stays without a category, as on an account that has not turned it on.
    const owner = await siteTenant('Uncategorised', { autofill: false, auto_categorise: false });
    const token = owner.tokens.account;
    const necessary = await api('POST', '/api/v1/categories', token, { category: { name: 'Necessary', required: true } });
    const marketing = await api('POST', '/api/v1/categories', token, { category: { name: 'Marketing' } });
    expect((await api('POST', '/api/v1/storage-items', token, {
      storage_item: { name: 'fp_session', domain: '127.0.0.1', category_id: necessary.body.data.id },
    })).status).toBe(201);
    const res = await api('POST', '/api/v1/scans', token, { scan: { starting_url: `${site.url}/`, max_pages: 3 } });
    const scan = await finished(token, res.body.data.id);
    expect(scan.status).toBe('completed');
    const before = scan.report.storage_items.filter((item: { set_before_consent: boolean }) => item.set_before_consent);
    const names = (list: { name: string }[]) => list.map((item) => item.name).sort();
    // Everything set before consent but fp_session (in a required category) has no category: nothing holds it back.
    expect(names(scan.report.uncategorised)).toEqual(names(before.filter((item: { name: string }) => item.name !== 'fp_session')));
    expect(names(scan.report.uncategorised)).toContain('_fbp');
    expect(scan.report.violations).toEqual([]);
    expect(scan.report.summary).toEqual({ set_before_consent: before.length, uncategorised: before.length - 1, violations: 0, passed: false });
    const fbp = scan.report.uncategorised.find((item: { name: string }) => item.name === '_fbp');
    expect(fbp).toEqual({ name: '_fbp', domain: '127.0.0.1', storage_type: 'cookie', storage_item_id: expect.any(String), first_seen_url: `${site.url}/` });

    // Given a refusable category, _fbp becomes a violation; an item deleted from the account stays uncategorised.
    expect((await api('PUT', `/api/v1/storage-items/${fbp.storage_item_id}`, token, { storage_item: { category_id: marketing.body.data.id } })).status).toBe(200);
    const pref = scan.report.uncategorised.find((item: { name: string }) => item.name === 'js_pref');
    expect((await api('DELETE', `/api/v1/storage-items/${pref.storage_item_id}`, token)).status).toBe(200);
    const again = (await api('GET', `/api/v1/scans/${scan.id}`, token)).body.data.report;
    expect(names(again.violations)).toEqual(['_fbp']);
    expect(names(again.uncategorised)).toContain('js_pref');
    expect(names(again.uncategorised)).not.toContain('_fbp');
    expect(again.summary).toEqual({ set_before_consent: before.length, uncategorised: before.length - 2, violations: 1, passed: false });
    // The list of scans carries the same counts.
    const listed = (await api('GET', '/api/v1/scans', token)).body.data;
    expect(listed.map((s: { report: { summary: unknown } }) => s.report.summary)).toEqual([again.summary]);
  }, 120_000);

  it('describes the banner\'s own consent cookie in the account\'s language and files it as necessary', async () => {
    const owner = await siteTenant('Own cookie', { autofill: false, auto_categorise: false });
    const token = owner.tokens.account;
    expect((await api('PATCH', `/api/v1/accounts/${owner.account.id}`, token, { account: { default_language: 'de' } })).status).toBe(200);
    const necessary = await api('POST', '/api/v1/categories', token, { category: { name: 'Notwendig', required: true } });
    const name = `consentry_${owner.account.id.replace(/-/g, '')}`;
    site.consentCookie = name;
    try {
      const res = await api('POST', '/api/v1/scans', token, { scan: { starting_url: `${site.url}/`, max_pages: 1 } });
      expect((await finished(token, res.body.data.id)).status).toBe('completed');
    } finally {
      site.consentCookie = 'consentry_consent';
    }
    const own = (await itemsOf(owner.account.id)).find((item) => item.name === name);
    expect(own).toMatchObject({ description: OWN_COOKIE_DESCRIPTIONS.de, category_id: necessary.body.data.id, created_by: 'scan' });
    // Every other item the scan made is left for a person (or the AI) to describe.
    expect((await itemsOf(owner.account.id)).filter((item) => item.name !== name).every((item) => item.description === '')).toBe(true);
  }, 120_000);

  it('offers to remove what the scan of the real site did not see, such as the demo\'s examples, and removes only that', async () => {
    const demo = await seedDemo(t.services.db);
    const token = demo.tokens.account;
    expect((await api('GET', `/api/v1/accounts/${demo.account.id}`, token)).body.demo).toBe(true);
    // The owner points the demo account at the real site and scans it.
    expect((await api('PATCH', `/api/v1/accounts/${demo.account.id}`, demo.tokens.partner, { account: { domain: '127.0.0.1' } })).status).toBe(200);
    const queued = await api('POST', '/api/v1/scans', token, { scan: { starting_url: `${site.url}/`, max_pages: 2 } });
    // Not yet completed: nothing is removed on its word.
    expect((await api('POST', `/api/v1/scans/${queued.body.data.id}/remove-unseen-items`, token, { storage_item_ids: [demo.storage_items[0].id] })).body)
      .toEqual(invalid('Scan must have completed and found storage items before anything is removed on its word'));
    const scan = await finished(token, queued.body.data.id);
    expect(scan.status).toBe('completed');
    const report = (await api('GET', `/api/v1/scans/${scan.id}`, token)).body.data.report;
    // The demo's catalogue (on shop.example.com) is what the scan did not see: _ga and _fbp are there twice until it goes.
    expect(report.unseen_items.map((item: { name: string }) => item.name).sort()).toEqual(demo.storage_items.map((item) => item.name).sort());
    expect((await itemsOf(demo.account.id)).filter((item) => item.name === '_fbp')).toHaveLength(2);
    expect((await api('GET', '/api/v1/scans', token)).body.data[0].report).not.toHaveProperty('unseen_items');

    // Only unseen items go, whatever else is named: an item the scan saw, another account's, a non-id.
    const seen = report.storage_items[0].storage_item_id;
    const foreign = (await api('POST', '/api/v1/storage-items', tenant.tokens.admin, { storage_item: { name: 'elsewhere_kept' } })).body.data.id;
    const ids = [...report.unseen_items.map((item: { storage_item_id: string }) => item.storage_item_id), seen, foreign, 'not-an-id'];
    const removed = await api('POST', `/api/v1/scans/${scan.id}/remove-unseen-items`, token, { storage_item_ids: ids });
    expect(removed.status).toBe(200);
    expect(removed.body.data.removed.sort()).toEqual(demo.storage_items.map((item) => item.id).sort());
    const left = await itemsOf(demo.account.id);
    expect(left.map((item) => item.id)).toContain(seen);
    expect(left.filter((item) => item.name === '_fbp').map((item) => item.domain)).toEqual(['127.0.0.1']);
    expect((await itemsOf(tenant.account.id)).map((item) => item.id)).toContain(foreign);
    expect((await api('GET', `/api/v1/scans/${scan.id}`, token)).body.data.report.unseen_items).toEqual([]);
    // The next test rescans this account and expects only what scans found in it.
    expect((await api('DELETE', `/api/v1/storage-items/${foreign}`, tenant.tokens.admin)).status).toBe(200);
  }, 120_000);

  it('rescans without duplicating anything, only marking what it saw again', async () => {
    const token = tenant.tokens.admin;
    const before = await itemsOf(tenant.account.id);
    const res = await api('POST', '/api/v1/scans', token, { scan: { starting_url: `${site.url}/`, max_pages: 20 } });
    expect(res.status).toBe(201);
    const scan = await finished(token, res.body.data.id);
    expect(scan.status).toBe('completed');
    expect(scan.storage_items_found).toBe(14);
    expect(scan.new_storage_items).toBe(0);
    const after = await itemsOf(tenant.account.id);
    expect(after.map((item) => item.id)).toEqual(before.map((item) => item.id));
    for (const item of after.filter((row) => !row.is_wildcard_cookie)) {
      const earlier = before.find((row) => row.id === item.id)!;
      expect(item.last_seen_at!.getTime()).toBeGreaterThan(earlier.last_seen_at!.getTime());
      expect({ name: item.name, updated_at: item.updated_at }).toEqual({ name: item.name, updated_at: earlier.updated_at });
    }
    const list = await api('GET', '/api/v1/scans', token);
    expect(list.body.pagination.count).toBe(2);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([expect.any(String), scan.id]);
  }, 120_000);

  it('stops at max_pages', async () => {
    const small = await siteTenant('Small');
    const res = await api('POST', '/api/v1/scans', small.tokens.account, { scan: { starting_url: `${site.url}/`, max_pages: 2 } });
    const scan = await finished(small.tokens.account, res.body.data.id);
    expect(scan.status).toBe('completed');
    expect(scan.pages_scanned).toBe(2);
    expect(scan.report.pages.filter((p: { pass: string }) => p.pass === 'before_consent').map((p: { url: string }) => p.url))
      .toEqual([`${site.url}/`, `${site.url}/about`]);
  }, 60_000);

  it('refuses what may not be scanned', async () => {
    const token = tenant.tokens.admin;
    const post = (scan: unknown) => api('POST', '/api/v1/scans', token, { scan });
    expect((await post({ starting_url: 'ftp://127.0.0.1/' })).body).toEqual(invalid('Starting url is invalid'));
    expect((await post({ starting_url: 'not a url' })).body).toEqual(invalid('Starting url is invalid'));
    expect((await post({ starting_url: 'http://127.0.0.2/' })).body).toEqual(invalid("Starting url must be on the account's domain or allowed domains"));
    expect((await post({ starting_url: 'http://evil.example/' })).body).toEqual(invalid("Starting url must be on the account's domain or allowed domains"));
    expect((await post({ starting_url: `${site.url}/`, max_pages: 0 })).status).toBe(422);
    expect((await post({ starting_url: `${site.url}/`, max_pages: 501 })).status).toBe(422);
    expect((await post({})).status).toBe(422);
    const member = await api('POST', '/api/v1/scans', tenant.tokens.member, { scan: { starting_url: `${site.url}/` } });
    expect(member.status).toBe(403);

    // At most SCAN_DAILY_LIMIT (10) a day.
    const busy = await siteTenant('Busy');
    await t.services.db.insertInto('scans').values(Array.from({ length: 10 }, (_, i) => ({
      id: crypto.randomUUID(), account_id: busy.account.id, owner_id: busy.partner.id, status: 'completed' as const, starting_url: `${site.url}/`, max_pages: 1,
      created_at: new Date(Date.now() - i * 60_000),
    }))).execute();
    const limited = await api('POST', '/api/v1/scans', busy.tokens.account, { scan: { starting_url: `${site.url}/` } });
    expect(limited.body).toEqual(invalid('Account has reached its limit of 10 scans a day'));
  });

  it('cancels a running scan and a queued one; one active scan per account', async () => {
    site.delayMs = 400;
    try {
      const token = tenant.tokens.admin;
      const res = await api('POST', '/api/v1/scans', token, { scan: { starting_url: `${site.url}/` } });
      expect(res.status).toBe(201);
      const id = res.body.data.id;
      expect((await api('POST', '/api/v1/scans', token, { scan: { starting_url: `${site.url}/` } })).body)
        .toEqual(invalid('Account already has a scan queued or running'));
      // Another account waits behind it (one browser at a time), and is cancelled while queued.
      const other = await siteTenant('Other');
      const queued = await api('POST', '/api/v1/scans', other.tokens.account, { scan: { starting_url: `${site.url}/` } });
      await vi.waitUntil(async () => {
        const scan = (await api('GET', `/api/v1/scans/${id}`, token)).body.data;
        return scan.status === 'in_progress' && scan.pages_scanned >= 1;
      }, { timeout: 30_000, interval: 100 });
      expect((await api('GET', `/api/v1/scans/${queued.body.data.id}`, other.tokens.account)).body.data.status).toBe('queued');
      const cancelQueued = await api('DELETE', `/api/v1/scans/${queued.body.data.id}`, other.tokens.account);
      expect(cancelQueued.body.data).toMatchObject({ status: 'cancelled', finished_at: expect.stringMatching(ISO), started_at: null });

      const cancel = await api('DELETE', `/api/v1/scans/${id}`, token);
      expect(cancel.status).toBe(200);
      expect(cancel.body.data.status).toBe('cancelled');
      expect((await api('DELETE', `/api/v1/scans/${id}`, token)).body).toEqual(invalid('Scan has already been cancelled'));
      // The runner lets go: the browser stops, the scan stays cancelled, and the next scan runs.
      site.delayMs = 0;
      const next = await api('POST', '/api/v1/scans', token, { scan: { starting_url: `${site.url}/`, max_pages: 1 } });
      expect(next.status).toBe(201);
      expect((await finished(token, next.body.data.id)).status).toBe('completed');
      const cancelled = (await api('GET', `/api/v1/scans/${id}`, token)).body.data;
      expect(cancelled).toMatchObject({ status: 'cancelled', report: null, error: null });
      expect((await api('DELETE', `/api/v1/scans/${next.body.data.id}`, token)).body).toEqual(invalid('Scan has already finished'));
    } finally {
      site.delayMs = 0;
    }
  }, 90_000);

  it('queues scheduled rescans when they are due, and shows the schedule on the account', async () => {
    const scheduled = await siteTenant('Scheduled');
    const token = scheduled.tokens.account;
    const set = await api('PATCH', `/api/v1/accounts/${scheduled.account.id}`, token, { account: { scan_schedule: 'weekly' } });
    expect(set.body.scan_schedule).toBe('weekly');
    const week = new Date(set.body.next_scan_at).getTime() - Date.now();
    expect(Math.abs(week - 7 * 86_400_000)).toBeLessThan(60_000);
    expect(await t.services.scans.queueDueRescans()).toBe(0);
    // The date comes; the account's own site (port 443 on loopback, where nothing listens) is queued.
    await t.services.db.updateTable('accounts').set({ next_scan_at: new Date(Date.now() - 1000) }).where('id', '=', scheduled.account.id).execute();
    expect(await t.services.scans.queueDueRescans()).toBe(1);
    const list = await api('GET', '/api/v1/scans', token);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ scheduled: true, starting_url: 'https://127.0.0.1/' });
    const account = await api('GET', `/api/v1/accounts/${scheduled.account.id}`, token);
    expect(new Date(account.body.next_scan_at).getTime() - Date.now()).toBeGreaterThan(6 * 86_400_000);
    const failed = await finished(token, list.body.data[0].id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^The starting url could not be loaded: /);
    const off = await api('PATCH', `/api/v1/accounts/${scheduled.account.id}`, token, { account: { scan_schedule: 'off' } });
    expect(off.body).toMatchObject({ scan_schedule: 'off', next_scan_at: null });
  }, 60_000);
});
