/**
 * Consents through the balancer of deploy/try-cluster.sh (HAProxy, PgBouncer in transaction mode,
 * two instances on Redis): 32 clients post the banner's consent (with an idempotency key) for
 * BALANCER_SECONDS (default 15) through HAProxy, then as long straight to the two instances in turn
 * (no balancer), and print consents/s, p50/p99 and the CPU milliseconds per consent of the instances,
 * HAProxy and PgBouncer (from /proc). docs/scaling.md, "Measured through the balancer".
 *
 *   DATABASE_URL=postgres://… REDIS_URL=redis://… npx tsx bench/balancer.ts
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { seedDemo } from '../src/demo.ts';

const seconds = Number(process.env.BALANCER_SECONDS ?? 15);
const CLIENTS = 32;
const schema = `balancer_${randomBytes(4).toString('hex')}`;
const state = mkdtempSync(join(tmpdir(), 'consentry-balancer-'));
const env = { ...process.env, CONSENTRY_CLUSTER_DIR: state, DATABASE_SCHEMA: schema, WIDGET_RATE_LIMIT_PER_MIN: '1000000000', LOG_LEVEL: 'warn' };
const cluster = (...args: string[]) => JSON.parse(execFileSync('deploy/try-cluster.sh', args, { env, encoding: 'utf8' }).trim().split('\n').at(-1)!);

const cpuMs = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
};
/** The process and its children (HAProxy's master and worker). */
const treeMs = (pid: number) => {
  let total = cpuMs(pid);
  let children = '';
  try {
    children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    // none (ps exits 1)
  }
  for (const child of children.split('\n').filter(Boolean)) total += cpuMs(Number(child));
  return total;
};
const pidIn = (name: string) => Number(readFileSync(join(state, `${name}.pid`), 'utf8'));

async function load(urls: string[]) {
  const latencies: number[] = [];
  let failed = 0;
  const stopAt = Date.now() + seconds * 1000;
  let next = 0;
  const client = async () => {
    while (Date.now() < stopAt) {
      const key = randomBytes(16).toString('hex');
      const started = performance.now();
      const res = await fetch(urls[next++ % urls.length], {
        method: 'POST', headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ consent: { session_id: `b-${key}`, user_preferences: { accept_type: 'all' } }, idempotency_key: key }),
      }).catch(() => undefined);
      await res?.arrayBuffer();
      if (res?.status === 201) latencies.push(performance.now() - started);
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  latencies.sort((a, b) => a - b);
  const at = (p: number) => +latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(1);
  return { consents: latencies.length, perS: Math.round(latencies.length / seconds), p50: at(0.5), p99: at(0.99), failed };
}

const up = cluster('up');
const db = createDb(loadConfig({ ...process.env, DATABASE_SCHEMA: schema, LOG_LEVEL: 'silent' }));
try {
  const { account } = await seedDemo(db.kysely);
  const path = `/widget/${account.id}/consents`;
  const pids = { instances: [pidIn('instance1'), pidIn('instance2')], haproxy: pidIn('haproxy'), pgbouncer: pidIn('pgbouncer') };
  const measure = async (label: string, urls: string[]) => {
    const before = { instances: pids.instances.map(treeMs), haproxy: treeMs(pids.haproxy), pgbouncer: treeMs(pids.pgbouncer) };
    const result = await load(urls);
    const per = (ms: number) => +(ms / result.consents * 1000).toFixed(0);
    const cpu = {
      instancesUs: per(pids.instances.reduce((sum, pid, i) => sum + treeMs(pid) - before.instances[i], 0)),
      haproxyUs: per(treeMs(pids.haproxy) - before.haproxy),
      pgbouncerUs: per(treeMs(pids.pgbouncer) - before.pgbouncer),
    };
    const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(JSON.stringify({ label, ...result, cpuPerConsent: cpu, loadavg: load1 }));
  };
  // A warm-up: the instances' JIT and the account's caches.
  await load([`${up.url}${path}`]);
  await measure('through HAProxy', [`${up.url}${path}`]);
  await measure('straight to the instances', up.instances.map((i: { port: number }) => `http://127.0.0.1:${i.port}${path}`));
} finally {
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.kysely);
  await db.close();
  execFileSync('deploy/try-cluster.sh', ['down'], { env });
  rmSync(state, { recursive: true, force: true });
}
