/**
 * Crash durability: consents are recorded at full speed, the server is killed with SIGKILL in the
 * middle, restarted on the same database, and every consent that was answered 201 must be there,
 * exactly once.
 */
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/database.ts';
import { seedDemo } from '../../src/demo.ts';
import { ENGINE } from '../helpers/app.ts';
import { processDatabase } from '../helpers/process-database.ts';
import { startServer } from '../helpers/server-process.ts';

const { env, database } = processDatabase('crash', { WIDGET_RATE_LIMIT_PER_MIN: '100000000', RATE_LIMIT_MAX: '100000000' });

/**
 * Sends consents from `workers` loops; kills the server once `killAt` were acknowledged (mid-load:
 * many more are in flight); returns the acknowledged session ids.
 */
async function load(url: string, accountId: string, workers: number, killAt: number, kill: () => Promise<void>) {
  const acknowledged: string[] = [];
  let stop = false;
  let sequence = 0;
  const loop = async () => {
    while (!stop) {
      const session = `crash-${++sequence}`;
      try {
        const res = await fetch(`${url}/widget/${accountId}/consents`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ consent: { session_id: session, user_preferences: { accept_type: 'all' } } }),
        });
        if (res.status === 201) acknowledged.push(session);
        else await res.arrayBuffer();
      } catch {
        return; // the server is gone
      }
    }
  };
  const loops = Array.from({ length: workers }, loop);
  const deadline = Date.now() + 30_000;
  while (acknowledged.length < killAt && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  await kill();
  stop = true;
  await Promise.all(loops);
  return acknowledged;
}

describe(`crash durability (${ENGINE})`, () => {
  it('keeps every acknowledged consent through SIGKILL, with no duplicate', async () => {
    const seeding = database();
    await migrate(seeding, env.DATABASE_SCHEMA);
    const { account } = await seedDemo(seeding.kysely);
    await seeding.close();

    let server = await startServer(env);
    const acknowledged = await load(server.url, account.id, 32, 300, () => server.kill('SIGKILL'));
    expect(acknowledged.length).toBeGreaterThanOrEqual(300);

    // The server comes back on the same database (the embedded one recovers and takes over the lock).
    server = await startServer(env);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    await server.kill('SIGTERM');

    const check = database();
    try {
      const rows = await check.kysely
        .selectFrom('consents')
        .select(['session_id', (eb) => eb.fn.countAll<number>().as('copies')])
        .where('account_id', '=', account.id)
        .groupBy('session_id')
        .execute();
      const stored = new Map(rows.map((row) => [row.session_id, Number(row.copies)]));
      const lost = acknowledged.filter((session) => !stored.has(session));
      const duplicated = [...stored].filter(([, copies]) => copies > 1);
      expect({ acknowledged: acknowledged.length, lost, duplicated }).toEqual({ acknowledged: acknowledged.length, lost: [], duplicated: [] });
      const counted = await check.kysely.selectFrom('account_consent_counts').select('consents').where('account_id', '=', account.id).executeTakeFirst();
      expect(Number(counted?.consents)).toBe(rows.length);
    } finally {
      await check.close();
    }
  }, 90_000);
});
