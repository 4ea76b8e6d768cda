/**
 * Scan alerts: a scan compared with the account's previous completed scan (items new, items gone,
 * what is set before consent), the differences in the report, in the `scan.completed` webhook (and
 * `storage_item.discovered` for each new item), and emailed to the admins for a scheduled scan.
 * The site's findings are given to the real scan runner in place of the browser's crawl: the
 * browser's own findings are tested in scans.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../../../src/db/ids.ts';
import type { CrawlResult, FoundItem } from '../../../src/scanner/crawl.ts';
import { ScanRunner } from '../../../src/modules/scans/scan-jobs.ts';
import { call, ENGINE } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts';

const item = (name: string, storage_type: FoundItem['storage_type'], before: boolean): FoundItem => ({
  name, domain: 'alerts.example.com', storage_type, first_seen_url: 'https://alerts.example.com/', expires_at: null, duration: 'session',
  path: '/', secure: true, http_only: false, same_site: 'Lax', partitioned: false, set_before_consent: before, set_by: null,
});

describe(`scan alerts (${ENGINE})`, () => {
  // The app's own runner runs no scan: the test's runner, whose crawl answers `site`, takes them.
  const { t, tenants, inbox } = fileApp({
    tenants: ['Alerts'] as const, inbox: true,
    env: { SCAN_CONCURRENCY: '0', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '50', RATE_LIMIT_MAX: '100000' },
  });
  let receiver: Receiver;
  let runner: ScanRunner;
  let site: FoundItem[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    const log = { error: () => {} };
    const mailLog = { info: () => {}, error: () => {} } as unknown as FastifyBaseLogger;
    const crawl = async (): Promise<CrawlResult> => ({
      pages: [{ url: 'https://alerts.example.com/', status: 200, time_ms: 5, pass: 'before_consent', error: null }],
      items: site, refused: [], consent_banner: false,
    });
    runner = new ScanRunner(t.services.db, t.services.engine, { ...t.services.config, scanConcurrency: 1 }, t.services.ai, log,
      (message) => t.services.mailer.send(message, mailLog), crawl);
    await runner.start();
  });
  afterAll(async () => {
    await runner?.close();
    await receiver?.close();
  });

  async function scan(scheduled: boolean, items: FoundItem[]) {
    const [tenant] = tenants;
    site = items;
    const id = newId();
    await t.services.db.insertInto('scans').values({
      id, account_id: tenant.account.id, owner_id: tenant.partner.id, scheduled, starting_url: 'https://alerts.example.com/', max_pages: 5,
    }).execute();
    runner.wake();
    await expect.poll(async () => (await call(t.app, 'GET', `/api/v1/scans/${id}`, { token: tenant.tokens.admin })).body.data.status).toBe('completed');
    return (await call(t.app, 'GET', `/api/v1/scans/${id}`, { token: tenant.tokens.admin })).body.data;
  }

  const completed = () => receiver.of('/scans').filter((r) => r.verified?.type === 'scan.completed').map((r) => r.verified!.data);
  const named = (name: string, storage_type: string) => ({ name, domain: 'alerts.example.com', storage_type });

  it('finds what is new, gone and set before consent, tells the webhook and emails the admins of a scheduled scan', async () => {
    const [tenant] = tenants;
    const hook = await call(t.app, 'POST', '/api/v1/webhooks', {
      token: tenant.tokens.admin, body: { webhook: { url: `${receiver.url}/scans`, events: ['scan.completed', 'storage_item.discovered'] } },
    });
    expect(hook.status).toBe(201);
    receiver.secrets.set('/scans', hook.body.secret);

    // The first scan: nothing to compare with; a manual scan emails nobody.
    const first = await scan(false, [item('kept', 'cookie', true), item('dropped', 'local_storage', false)]);
    expect(first.report.changes).toBeUndefined();
    await expect.poll(() => completed().length).toBe(1);
    expect(completed()[0]).toMatchObject({
      scan_id: first.id, scheduled: false, previous_scan_id: null, new_items: { count: 0, items: [] }, gone_items: { count: 0, items: [] },
      set_before_consent: { count: 1, items: [named('kept', 'cookie')] }, storage_items_found: 2, new_storage_items: 2,
    });
    await expect.poll(() => receiver.of('/scans').filter((r) => r.verified?.type === 'storage_item.discovered').length).toBe(2);

    // `kept` gets a required category: set before consent, and rightly so.
    const necessary = await call(t.app, 'POST', '/api/v1/categories', { token: tenant.tokens.admin, body: { category: { name: 'Necessary', required: true } } });
    await t.services.db.updateTable('storage_items').set({ category_id: necessary.body.data.id })
      .where('account_id', '=', tenant.account.id).where('name', '=', 'kept').execute();

    // A scheduled scan: `pixel` is new and set before consent without a category, `dropped` is gone.
    const second = await scan(true, [item('kept', 'cookie', true), item('pixel', 'cookie', true)]);
    expect(second.report.changes).toEqual({ previous_scan_id: first.id, new_items: [named('pixel', 'cookie')], gone_items: [named('dropped', 'local_storage')] });
    await expect.poll(() => completed().length).toBe(2);
    expect(completed()[1]).toMatchObject({
      scan_id: second.id, scheduled: true, previous_scan_id: first.id,
      new_items: { count: 1, items: [named('pixel', 'cookie')] }, gone_items: { count: 1, items: [named('dropped', 'local_storage')] },
      set_before_consent: { count: 1, items: [named('pixel', 'cookie')] },
    });
    await expect.poll(() => receiver.of('/scans').filter((r) => r.verified?.type === 'storage_item.discovered').length).toBe(3);
    expect(receiver.of('/scans').filter((r) => r.verified?.type === 'storage_item.discovered').at(-1)!.verified!.data)
      .toMatchObject({ name: 'pixel', storage_type: 'cookie', status: 'draft', category_id: null });
    expect(receiver.of('/scans').every((r) => r.verified !== undefined)).toBe(true);

    await expect.poll(() => inbox.mails.filter((m) => m.to.includes(tenant.admin.email)).length).toBe(1);
    expect(inbox.mails.some((m) => m.to.includes(tenant.member.email))).toBe(false);
    const mail = inbox.mails.find((m) => m.to.includes(tenant.admin.email))!;
    const body = mail.text.replace(/\r\n/g, '\n');
    expect(mail.raw).toContain('Scan of Alerts site: 1 new, 1 gone, 1 before consent');
    expect(body).toContain('New storage items (1):\n- pixel (cookie, alerts.example.com)');
    expect(body).toContain('Storage items no longer found (1):\n- dropped (local_storage, alerts.example.com)');
    expect(body).toContain('Set before the visitor consented, and not in a required category (1):\n- pixel (cookie');
    expect(body).toContain(`/accounts/${tenant.account.id}/scans/${second.id}`);

    // The same site again, `pixel` now required too: nothing new, nothing gone, nothing to fix: no email.
    await t.services.db.updateTable('storage_items').set({ category_id: necessary.body.data.id })
      .where('account_id', '=', tenant.account.id).where('name', '=', 'pixel').execute();
    const third = await scan(true, [item('kept', 'cookie', true), item('pixel', 'cookie', true)]);
    expect(third.report.changes).toEqual({ previous_scan_id: second.id, new_items: [], gone_items: [] });
    await expect.poll(() => completed().length).toBe(3);
    expect(completed()[2]).toMatchObject({ new_items: { count: 0 }, gone_items: { count: 0 }, set_before_consent: { count: 0 } });
    expect(inbox.mails.filter((m) => m.to.includes(tenant.admin.email)).length).toBe(1);
  });
});
