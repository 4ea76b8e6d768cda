/**
 * A server killed with SIGKILL in the middle of a scan leaves no scan stuck `in_progress`: the
 * restarted server takes the abandoned scan back (at once on the embedded database, which one
 * process owns; once its lease has run out on PostgreSQL) and runs it again to the end.
 */
import { afterAll, expect, it, vi } from 'vitest';
import { migrate } from '../../src/db/database.ts';
import { seedDemo } from '../../src/demo.ts';
import { ENGINE } from '../helpers/app.ts';
import { describeBrowser } from '../helpers/browser.ts';
import { startScanSite, type ScanSite } from '../helpers/scan-site.ts';
import { processDatabase } from '../helpers/process-database.ts';
import { startServer } from '../helpers/server-process.ts';

// A short lease, so that the restarted server takes the scan back soon; not so short that a busy
// machine's stall (a heartbeat every third of it) lets the restarted server's own lease run out.
const { env, database } = processDatabase('scan_crash', { SCAN_ALLOW_PRIVATE_NETWORKS: 'true', SCAN_LEASE_S: '8', RATE_LIMIT_MAX: '100000' });
let site: ScanSite | undefined;

afterAll(async () => {
  await site?.close();
});

async function scanOf(url: string, token: string, id: string) {
  const res = await fetch(`${url}/api/v1/scans/${id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { status: string; pages_scanned: number; error: string | null; new_storage_items: number } }).data;
}

describeBrowser(`a scan through a crash (${ENGINE})`, () => {
  it('is taken back and finished by the restarted server, never left in_progress', async () => {
    site = await startScanSite({ extraPages: 10 });
    site.delayMs = 300;
    const seeding = database();
    await migrate(seeding, env.DATABASE_SCHEMA);
    const demo = await seedDemo(seeding.kysely);
    await seeding.kysely.updateTable('accounts').set({ domain: '127.0.0.1' }).where('id', '=', demo.account.id).execute();
    await seeding.close();
    const token = demo.tokens.account;

    let server = await startServer(env);
    const created = await fetch(`${server.url}/api/v1/scans`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scan: { starting_url: `${site.url}/`, max_pages: 30 } }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    await vi.waitUntil(async () => {
      const scan = await scanOf(server.url, token, id);
      return scan.status === 'in_progress' && scan.pages_scanned >= 2;
    }, { timeout: 30_000, interval: 100 });
    await server.kill('SIGKILL');

    const check = database();
    try {
      const orphan = await check.kysely.selectFrom('scans').select(['status', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(orphan).toEqual({ status: 'in_progress', attempts: 1 });
    } finally {
      await check.close();
    }

    site.delayMs = 0;
    server = await startServer(env);
    try {
      const scan = await vi.waitUntil(async () => {
        const current = await scanOf(server.url, token, id);
        return ['completed', 'failed', 'cancelled'].includes(current.status) && current;
      }, { timeout: 90_000, interval: 100 });
      expect(scan).toMatchObject({ status: 'completed', error: null, pages_scanned: 18 });
    } finally {
      await server.kill('SIGTERM');
    }
    const after = database();
    try {
      const row = await after.kysely.selectFrom('scans').select(['status', 'attempts', 'locked_by']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'completed', attempts: 2, locked_by: null });
      const items = await after.kysely.selectFrom('storage_items').select('name').where('account_id', '=', demo.account.id).where('created_by', '=', 'scan').execute();
      expect(items.map((item) => item.name)).toContain('hidden_cookie');
    } finally {
      await after.close();
    }
  }, 180_000);
});
