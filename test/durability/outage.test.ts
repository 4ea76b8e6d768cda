/**
 * Database outage: the service answers 503 with Retry-After while PostgreSQL is down, never
 * crashes or hangs, and serves again within seconds of the database returning, without a restart.
 * It runs its own PostgreSQL so that stopping it disturbs nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ENGINE, startApp, type TestApp } from '../helpers/app.ts';
import { canRunPrivatePostgres, PrivatePostgres } from '../helpers/private-postgres.ts';
import { createTenant, type Tenant } from '../helpers/tenants.ts';

const enabled = ENGINE === 'postgres' && canRunPrivatePostgres();

/** A request must end, one way or another, well within this: a hang fails the test. */
const BOUND_MS = 15_000;
const bounded = <T>(promise: Promise<T>) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('request hung')), BOUND_MS))]);

describe.runIf(enabled)('database outage', () => {
  let pg: PrivatePostgres;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    pg = new PrivatePostgres();
    await pg.startOnFreePort();
    t = await startApp({ env: { DATABASE_URL: pg.url, RATE_LIMIT_MAX: '100000', WIDGET_RATE_LIMIT_PER_MIN: '100000' } });
    tenant = await createTenant(t.services, 'Outage');
  }, 60_000);

  afterAll(async () => {
    await t?.close().catch(() => {});
    pg?.destroy();
  });

  const consent = (session: string) => ({ consent: { session_id: session, user_preferences: { accept_type: 'all' } } });

  it('answers 503 while the database is down and recovers by itself', async () => {
    expect((await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account })).status).toBe(200);
    expect((await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body: consent('before') })).status).toBe(201);

    // Load in flight when the database goes away: every answer is 201 (committed before) or 503.
    let loading = true;
    const statuses: number[] = [];
    const loops = Array.from({ length: 16 }, async (_, worker) => {
      for (let i = 0; loading; i++) {
        statuses.push((await bounded(call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body: consent(`load-${worker}-${i}`) }))).status);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    pg.stop();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    loading = false;
    await Promise.all(loops);
    expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
    expect(statuses.at(-1)).toBe(503);
    const acknowledged = statuses.filter((status) => status === 201).length;

    const during = [
      await bounded(call(t.app, 'GET', '/readyz')),
      await bounded(call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account })),
      await bounded(call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body: consent('during') })),
      await bounded(call(t.app, 'GET', '/api/v1/me', { token: tenant.tokens.admin })),
    ];
    for (const res of during) {
      expect(res.status).toBe(503);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.body.errors[0].code).toBe(503);
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/i);
    }

    pg.start();
    let status = 0;
    const deadline = Date.now() + BOUND_MS;
    while (status !== 201 && Date.now() < deadline) {
      status = (await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body: consent('after') })).status;
      if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(201);
    expect((await call(t.app, 'GET', '/readyz')).status).toBe(200);
    const listed = await call(t.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { limit: '1' } });
    // At least: a commit whose answer was lost with the connection is stored though it was answered 503.
    expect(listed.body.pagination.count).toBeGreaterThanOrEqual(acknowledged + 2);
  }, 60_000);
});
