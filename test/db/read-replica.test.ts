/**
 * DATABASE_READ_URL: a real streaming replica (pg_basebackup -R of a private primary, on a port of
 * its own). Writes and reads of a record just made go to the primary; the consent listing, the chain
 * verification and the export go to the replica, shown by pausing its replay: a consent recorded
 * meanwhile is found by id (primary) and missing from the listing (replica). Past
 * DATABASE_READ_MAX_LAG_S, or with the replica down, /readyz says so (still 200) and the reads go to
 * the primary. PostgreSQL only: the embedded database has no replica.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ENGINE, startApp, type TestApp } from '../helpers/app.ts';
import { canRunPrivatePostgres, PrivatePostgres } from '../helpers/private-postgres.ts';
import { createTenant, type Tenant } from '../helpers/tenants.ts';

const enabled = ENGINE === 'postgres' && canRunPrivatePostgres();

async function until(check: () => Promise<boolean>, what: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.runIf(enabled)('read replica', () => {
  let primary: PrivatePostgres;
  let replica: PrivatePostgres;
  /** Lag limit 60 s: the replica serves its reads however long replay is paused here. */
  let patient: TestApp;
  /** Lag limit 1 s, on the same schema: passes the paused replica over. */
  let strict: TestApp;
  let tenant: Tenant;
  let control: pg.Client;

  const record = async (app: TestApp, session: string) => {
    const res = await call(app.app, 'POST', '/api/v1/consents', {
      token: tenant.tokens.account, body: { consent: { session_id: session, user_preferences: { accept_type: 'all' } } },
    });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const listed = async (app: TestApp) => {
    const res = await call(app.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { limit: '100' } });
    expect(res.status).toBe(200);
    return (res.body.data as { id: string }[]).map((consent) => consent.id);
  };
  const ready = async (app: TestApp) => {
    const res = await call(app.app, 'GET', '/readyz');
    expect(res.status).toBe(200);
    return res.body as { status: string; replica?: string; replica_lag_s?: number | null };
  };

  beforeAll(async () => {
    primary = new PrivatePostgres();
    await primary.startOnFreePort();
    replica = new PrivatePostgres({ replicaOf: primary });
    await replica.startOnFreePort();
    const env = { DATABASE_URL: primary.url, DATABASE_READ_URL: replica.url, RATE_LIMIT_MAX: '100000' };
    patient = await startApp({ env: { ...env, DATABASE_READ_MAX_LAG_S: '60' } });
    strict = await startApp({ env: { ...env, DATABASE_READ_MAX_LAG_S: '1' }, shareWith: patient });
    tenant = await createTenant(patient.services, 'Replica');
    control = new pg.Client({ connectionString: replica.url });
    await control.connect();
  }, 120_000);

  afterAll(async () => {
    await control?.end().catch(() => {});
    await strict?.close().catch(() => {});
    await patient?.close().catch(() => {});
    replica?.destroy();
    primary?.destroy();
  });

  it('lists from the replica, reads a record just made from the primary', async () => {
    const first = await record(patient, 'before-pause');
    await until(async () => (await listed(patient)).includes(first), 'the replica to show the first consent');
    expect(await ready(patient)).toMatchObject({ status: 'ok', replica: 'ok' });

    await control.query('select pg_wal_replay_pause()');
    await until(async () => (await control.query('select pg_get_wal_replay_pause_state() as state')).rows[0].state === 'paused', 'replay to pause');
    const second = await record(patient, 'during-pause');

    // By id: the primary, which has it.
    const one = await call(patient.app, 'GET', `/api/v1/consents/${second}`, { token: tenant.tokens.account });
    expect(one.status).toBe(200);
    expect(one.body.data.id).toBe(second);
    // The listing, the verification and the export: the replica, which has not replayed it.
    const list = await listed(patient);
    expect(list).toContain(first);
    expect(list).not.toContain(second);
    const verified = await call(patient.app, 'GET', '/api/v1/consents/verify', { token: tenant.tokens.account });
    expect(verified.body).toMatchObject({ valid: true, checked: 1 });
    const exported = await call(patient.app, 'GET', '/api/v1/consents/export', { token: tenant.tokens.account });
    expect(exported.status).toBe(200);
    expect(exported.body).toContain(first);
    expect(exported.body).not.toContain(second);

    // The lag grows while replay is paused and a write waits; under the limit the replica serves on.
    await until(async () => ((await ready(patient)).replica_lag_s ?? 0) >= 1, 'the lag to show');
    expect((await ready(patient)).replica).toBe('ok');

    // Past its limit of 1 s the strict instance says so, stays ready, and lists from the primary.
    await until(async () => (await ready(strict)).replica === 'lagging', 'the strict instance to find the replica lagging');
    const lagging = await ready(strict);
    expect(lagging.status).toBe('degraded');
    expect(lagging.replica_lag_s).toBeGreaterThan(1);
    expect(await listed(strict)).toContain(second);
    const fromPrimary = await call(strict.app, 'GET', '/api/v1/consents/verify', { token: tenant.tokens.account });
    expect(fromPrimary.body).toMatchObject({ valid: true, checked: 2 });

    await control.query('select pg_wal_replay_resume()');
    await until(async () => (await listed(patient)).includes(second), 'the replica to catch up');
    await until(async () => (await ready(strict)).replica === 'ok', 'the strict instance to use the replica again');
    expect(await ready(strict)).toMatchObject({ status: 'ok', replica: 'ok' });
  });

  it('reads from the primary while the replica is down', async () => {
    await control.end();
    replica.stop();
    const third = await record(patient, 'replica-down');
    // The first read to find the replica gone is answered by the primary, and so are the next.
    expect(await listed(patient)).toContain(third);
    expect((await ready(patient))).toMatchObject({ status: 'degraded', replica: 'unreachable', replica_lag_s: null });
    const stats = await call(patient.app, 'GET', '/api/v1/stats', { token: tenant.tokens.account });
    expect(stats.status).toBe(200);

    replica.start();
    await until(async () => (await ready(patient)).replica === 'ok', 'the replica to serve again');
    expect(await listed(patient)).toContain(third);
  });
});
