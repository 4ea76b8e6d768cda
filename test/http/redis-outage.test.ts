/**
 * Redis lost is not silent: the loss and the return are logged once each, and /readyz says
 * `degraded` (still 200) meanwhile, while requests go on being served with per-instance limits.
 * A private redis-server on its own port, so that stopping it disturbs nothing else.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/processes.ts';
import { call, ENGINE, startApp, type TestApp } from '../helpers/app.ts';
import { HAS_REDIS_SERVER, startRedis, stopRedis as stop } from '../helpers/redis-server.ts';
import { createTenant, type Tenant } from '../helpers/tenants.ts';

const enabled = ENGINE === 'embedded' && HAS_REDIS_SERVER;

async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 150; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.runIf(enabled)('Redis lost and back', () => {
  let port: number;
  let redis: ChildProcess;
  let t: TestApp;
  let tenant: Tenant;
  const lines: string[] = [];
  const logged = (text: string) => lines.filter((line) => line.includes(text)).length;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    t = await startApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'info' }, logLines: lines });
    tenant = await createTenant(t.services, 'Redis');
  });
  afterAll(async () => {
    await t?.close();
    if (redis) await stop(redis);
  });

  it('logs the loss and the return once each, and /readyz says degraded meanwhile', async () => {
    expect((await call(t.app, 'GET', '/readyz')).body).toEqual({ status: 'ok' });
    await stop(redis);
    await until(async () => (await call(t.app, 'GET', '/readyz')).body.status === 'degraded', 'readyz to say degraded');
    const degraded = await call(t.app, 'GET', '/readyz');
    expect(degraded).toMatchObject({ status: 200, body: { status: 'degraded', redis: 'unreachable' } });
    // Still serving, with limits counted here.
    const me = await call(t.app, 'GET', '/api/v1/me', { token: tenant.tokens.admin });
    expect(me.status).toBe(200);
    expect(me.headers['x-ratelimit-remaining']).toBeDefined();
    // Several reconnection attempts fail meanwhile; the loss is still logged once.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(logged('Redis is unreachable')).toBe(1);

    redis = await startRedis(port);
    await until(async () => (await call(t.app, 'GET', '/readyz')).body.status === 'ok', 'readyz to say ok again');
    expect(logged('Redis is reachable again')).toBe(1);
    expect(logged('Redis is unreachable')).toBe(1);
    const warn = JSON.parse(lines.find((line) => line.includes('Redis is unreachable'))!);
    expect(warn.level).toBe(40);
  });
});
