/**
 * The production topology under load (issue 48): deploy/try-cluster.sh starts HAProxy, PgBouncer in
 * transaction mode and two instances sharing Redis. 32 clients record consents through the balancer
 * as the banner does (a random `idempotency_key` per choice; a connection error or a 502-504 sent
 * again with the same key) while each instance is restarted in turn (SIGTERM: drained) and then one
 * is killed (SIGKILL). Then: no request failed during the restarts, every acknowledged consent is in
 * PostgreSQL, one row per key; a rate limit is hit across both instances, and a banner change made
 * through one instance is served by the other at once.
 *
 * PostgreSQL and Redis only (DATABASE_URL and REDIS_URL); it prints what it measured through the
 * balancer (docs/scaling.md, "Measured through the balancer").
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createDb, type Db } from '../../src/db/database.ts';
import { seedDemo } from '../../src/demo.ts';
import { ENGINE } from '../helpers/app.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
mkdirSync(join(root, 'dist'), { recursive: true });
const enabled = ENGINE === 'postgres' && !!process.env.DATABASE_URL && !!process.env.REDIS_URL;
const schema = `cluster_${randomBytes(5).toString('hex')}`;
const state = mkdtempSync(join(tmpdir(), 'consentry-cluster-test-'));
const CLIENTS = 32;
const AUTH_LIMIT = 6;

interface Cluster {
  url: string;
  instances: { pid: number; port: number }[];
}

const clusterEnv = {
  ...process.env,
  CONSENTRY_CLUSTER_DIR: state,
  DATABASE_SCHEMA: schema,
  // Every instance's settings: the load is one address (the test), far past the default widget limit;
  // the login limit is the one the test hits across the instances.
  WIDGET_RATE_LIMIT_PER_MIN: '100000000',
  RATE_LIMIT_MAX: '100000000',
  AUTH_RATE_LIMIT_PER_MIN: String(AUTH_LIMIT),
  SHUTDOWN_GRACE_S: '3',
  LOG_LEVEL: 'warn',
};

async function cluster(...args: string[]): Promise<Cluster> {
  const { stdout } = await run('deploy/try-cluster.sh', args, { env: clusterEnv, timeout: 120_000, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

let db: Db | undefined;
let up: Cluster;
let demo: Awaited<ReturnType<typeof seedDemo>>;

beforeAll(async () => {
  if (!enabled) return;
  // The bundle the script runs (dist/server.js), from these sources: built aside and renamed into
  // place, so that another test starting the script meanwhile never runs a half-written file.
  const aside = mkdtempSync(join(root, 'dist', 'cluster-build-'));
  try {
    await build({
      entryPoints: ['src/server.ts', 'src/scanner/crawl-worker.ts'].map((entry) => join(root, entry)),
      bundle: true, platform: 'node', format: 'esm', packages: 'external', target: 'node20', sourcemap: true, logLevel: 'warning',
      outdir: aside, entryNames: '[name]',
    });
    for (const file of readdirSync(aside)) renameSync(join(aside, file), join(root, 'dist', file));
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
  up = await cluster('up');
  db = createDb(loadConfig({ ...process.env, DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema, LOG_LEVEL: 'silent' }));
  demo = await seedDemo(db.kysely);
}, 180_000);

afterAll(async () => {
  if (!enabled) return;
  await run('deploy/try-cluster.sh', ['down'], { env: clusterEnv, timeout: 120_000 }).catch(() => {});
  if (db) {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.kysely);
    await db.close();
  }
  rmSync(state, { recursive: true, force: true });
}, 180_000);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

describe.skipIf(!enabled)('the cluster through its balancer (PostgreSQL, Redis)', () => {
  it('records every consent once through rolling restarts and a kill, with no failed request during the restarts', async () => {
    const url = `${up.url}/widget/${demo.account.id}/consents`;
    let phase = 'steady';
    let stop = false;
    let sequence = 0;
    /** Key → the consent id its answer named. */
    const acknowledged = new Map<string, string>();
    /** Every try that did not answer 201, by phase. */
    const failures: { phase: string; what: string }[] = [];
    const latencies: { at: number; ms: number }[] = [];
    const client = async () => {
      while (!stop) {
        const key = randomBytes(16).toString('hex');
        const body = JSON.stringify({ consent: { session_id: `cluster-${++sequence}-${key}`, user_preferences: { accept_type: 'all' } }, idempotency_key: key });
        // As the banner does: the same body, same key, again after a failure (here until it is answered).
        for (let tries = 0; ; tries++) {
          const started = performance.now();
          try {
            const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
            const answer = await res.text();
            if (res.status === 201) {
              acknowledged.set(key, JSON.parse(answer).data.id);
              latencies.push({ at: Date.now(), ms: performance.now() - started });
              break;
            }
            failures.push({ phase, what: `${res.status} ${answer.slice(0, 100)}` });
          } catch (error) {
            failures.push({ phase, what: String((error as Error).cause ?? error) });
          }
          if (tries > 50) throw new Error(`consent ${key} not recorded after 50 tries`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    const clients = Array.from({ length: CLIENTS }, client);

    // The steady state through the balancer: what docs/scaling.md quotes.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const from = Date.now();
    const before = acknowledged.size;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const steady = { consents: acknowledged.size - before, seconds: (Date.now() - from) / 1000 };
    const steadyMs = latencies.filter((l) => l.at >= from).map((l) => l.ms).sort((a, b) => a - b);

    phase = 'restart 1';
    await cluster('restart', '1');
    phase = 'restart 2';
    await cluster('restart', '2');
    const restarted = acknowledged.size;
    phase = 'kill 1';
    await cluster('kill', '1');
    phase = 'after';
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    stop = true;
    await Promise.all(clients);

    const rows = await db!.kysely.selectFrom('consents').select(['id', 'session_id']).where('account_id', '=', demo.account.id).execute();
    const stored = new Set(rows.map((row) => row.id));
    const perKey = new Map<string, number>();
    for (const row of rows) {
      const key = row.session_id.split('-').at(-1)!;
      perKey.set(key, (perKey.get(key) ?? 0) + 1);
    }
    const missing = [...acknowledged].filter(([, id]) => !stored.has(id));
    const duplicated = [...perKey].filter(([, copies]) => copies > 1);
    const failedInRestarts = failures.filter((f) => f.phase.startsWith('restart'));
    const failedInKill = failures.filter((f) => f.phase === 'kill 1');
    console.log(JSON.stringify({
      throughBalancer: { consentsPerS: Math.round(steady.consents / steady.seconds), p50Ms: +percentile(steadyMs, 0.5).toFixed(1), p99Ms: +percentile(steadyMs, 0.99).toFixed(1), clients: CLIENTS },
      acknowledged: acknowledged.size, acknowledgedByEndOfRestarts: restarted, stored: rows.length,
      failedInRestarts: failedInRestarts.length, triesFailedInKill: failedInKill.length, kinds: [...new Set(failures.map((f) => f.what))].slice(0, 5),
      missing: missing.length, duplicated: duplicated.length,
    }));
    expect(failedInRestarts).toEqual([]);
    expect(missing).toEqual([]);
    expect(duplicated).toEqual([]);
    // Every consent stored was acknowledged (the clients tried each until it was).
    expect(rows.length).toBe(acknowledged.size);
    expect(acknowledged.size).toBeGreaterThan(restarted);
  }, 150_000);

  it('shares a rate limit across the instances', async () => {
    const servers = new Set<string>();
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_LIMIT + 2; i++) {
      const res = await fetch(`${up.url}/api/v1/auth`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `nobody-${i}@example.test`, password: 'not the password' }),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status !== 429) servers.add(res.headers.get('x-consentry-server') ?? '');
    }
    // Both instances answered; together they allowed the limit once, not once each.
    expect(servers.size).toBe(2);
    expect(statuses.slice(0, AUTH_LIMIT).every((status) => status !== 429)).toBe(true);
    expect(statuses.slice(AUTH_LIMIT)).toEqual([429, 429]);
  });

  it('serves a banner change made through one instance from the other at once', async () => {
    const config = async (port: number) => {
      const res = await fetch(`http://127.0.0.1:${port}/widget/${demo.account.id}/config.json`);
      return (await res.json()).data.banner.show_reject_all as boolean;
    };
    // Both instances hold the banner built.
    const was = await config(up.instances[0].port);
    expect(await config(up.instances[1].port)).toBe(was);
    const [first, second] = up.instances;
    const change = await fetch(`http://127.0.0.1:${first.port}/api/v1/banner`, {
      method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.tokens.account}` },
      body: JSON.stringify({ banner: { show_reject_all: !was } }),
    });
    expect(change.status, await change.text()).toBe(200);
    // Told through Redis: the other instance rebuilds it (well within its own minute-long cache).
    await expect.poll(() => config(second.port), { timeout: 5_000, interval: 100 }).toBe(!was);
    expect(await config(first.port)).toBe(!was);
  });
});
