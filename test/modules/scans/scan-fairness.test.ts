/**
 * One owner's backlog does not hold up another owner's scan: scans are taken round robin across
 * owners (the user or partner behind the accounts), not oldest first. First the claims themselves,
 * as instances sharing one database make them; then the runner, in real Chromium.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { claimNextScan } from '../../../src/modules/scans/scans.repository.ts';
import { call, ENGINE, startApp, THROUGH_PGBOUNCER, type TestApp } from '../../helpers/app.ts';
import { describeBrowser } from '../../helpers/browser.ts';
import { startScanSite, type ScanSite } from '../../helpers/scan-site.ts';
import { createTenant, createUser } from '../../helpers/tenants.ts';

let t: TestApp;
let site: ScanSite;

const api = (method: string, url: string, token: string, body?: unknown) => call(t.app, method, url, { token, body });

/** A user owning `count` accounts on loopback, made as a self-signed-up user makes them. */
async function owner(label: string, count: number) {
  const { token } = await createUser(t.services, label);
  const accounts: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api('POST', '/api/v1/accounts', token, { account: { name: `${label} ${i}`, domain: '127.0.0.1' } });
    expect(res.status).toBe(201);
    accounts.push(res.body.id);
  }
  return { token, accounts };
}

async function queue(token: string, accountId: string, url = `${site.url}/`): Promise<string> {
  const res = await api('POST', `/api/v1/scans?account_id=${accountId}`, token, { scan: { starting_url: url, max_pages: 1 } });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function scanOf(token: string, accountId: string, id: string) {
  const res = await api('GET', `/api/v1/scans/${id}?account_id=${accountId}`, token);
  expect(res.status).toBe(200);
  return res.body.data as { id: string; status: string; started_at: string | null };
}

describe(`claims across owners (${ENGINE})`, () => {
  // No runner (SCAN_CONCURRENCY=0): the test makes the claims, as two instances would.
  beforeAll(async () => {
    t = await startApp({ env: { SCAN_ALLOW_PRIVATE_NETWORKS: 'true', SCAN_CONCURRENCY: '0', RATE_LIMIT_MAX: '100000' } });
  });
  afterAll(async () => { await t?.close(); });

  it('takes one scan of each owner in turn, the least recently served first', async () => {
    const url = 'http://127.0.0.1/';
    const a = await owner('Many', 3);
    const b = await owner('One', 1);
    // A partner's accounts are one owner, whatever user owns or administers them.
    const c = await createTenant(t.services, 'Agency');
    const second = await api('POST', '/api/v1/accounts', c.tokens.partner, { account: { name: 'Second', domain: '127.0.0.1', group_id: c.group.id } });
    await api('PATCH', `/api/v1/accounts/${c.account.id}`, c.tokens.partner, { account: { domain: '127.0.0.1' } });
    const partnerToken = (await api('POST', '/api/v1/api-tokens', c.tokens.partner, { name: 'scans', account_id: second.body.id })).body.token;

    const a1 = await queue(a.token, a.accounts[0], url);
    const a2 = await queue(a.token, a.accounts[1], url);
    const a3 = await queue(a.token, a.accounts[2], url);
    const b1 = await queue(b.token, b.accounts[0], url);
    const c1 = await queue(c.tokens.admin, c.account.id, url);
    const c2 = await queue(partnerToken, second.body.id, url);

    const claimed: string[] = [];
    for (let i = 0; i < 7; i++) {
      const scan = await claimNextScan(t.services.db, i % 2 ? 'instance-two' : 'instance-one', 30);
      if (scan) claimed.push(scan.id);
    }
    expect(claimed).toEqual([a1, b1, c1, a2, c2, a3]);
  });
});

// Not again through PgBouncer (the `pgbouncer` project runs the claims above): the browser's minutes.
(THROUGH_PGBOUNCER ? describe.skip : describeBrowser)(`scans taken fairly across owners (${ENGINE})`, () => {
  beforeAll(async () => {
    site = await startScanSite({ banner: false });
    // Each page takes a second until B has asked: A's first scan is still running when B asks.
    site.delayMs = 1000;
    t = await startApp({ env: { SCAN_ALLOW_PRIVATE_NETWORKS: 'true', SCAN_CONCURRENCY: '1', RATE_LIMIT_MAX: '100000' } });
  });
  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  it("starts a second owner's scan next, before the first owner's backlog", async () => {
    const a = await owner('Busy', 3);
    const b = await owner('Patient', 1);
    const queuedA: Array<{ token: string; accountId: string; id: string }> = [];
    for (const accountId of a.accounts) queuedA.push({ token: a.token, accountId, id: await queue(a.token, accountId) });
    // B asks once A's first scan is running and the rest of A's are waiting.
    const first = await vi.waitUntil(async () => {
      const scan = await scanOf(a.token, a.accounts[0], queuedA[0].id);
      return scan.status !== 'queued' && scan;
    }, { timeout: 200_000, interval: 200 });
    expect(first.status).toBe('in_progress');
    const queuedB = { token: b.token, accountId: b.accounts[0], id: await queue(b.token, b.accounts[0]) };
    // B is in the queue behind a running scan: the pages need not be slow any more.
    site.delayMs = 0;

    const scans = await vi.waitUntil(async () => {
      const all = await Promise.all([...queuedA, queuedB].map((s) => scanOf(s.token, s.accountId, s.id)));
      return all.every((scan) => scan.status === 'completed') && all;
    }, { timeout: 200_000, interval: 200 });
    const started = [...scans].sort((x, y) => x.started_at!.localeCompare(y.started_at!)).map((scan) => scan.id);
    expect(started.indexOf(queuedB.id)).toBe(1);
    expect(started[0]).toBe(queuedA[0].id);
  }, 240_000);
});
