/**
 * The export of large consents, measured as a probe found it killing the server: 5,000 consents
 * whose `accepted_services` hold 80 keys of 200 names (~65 KB each, as recorded before a consent's
 * services were bounded in total: written here past the API, through the writer), exported as CSV
 * and as NDJSON from the built server, on the embedded database and on PostgreSQL when
 * DATABASE_URL is set. Prints, per engine and format, the bytes and lines received, the server's
 * resident memory (before, sampled every 100 ms during, and its peak) and the slowest `/healthz` answer while the
 * export ran (asked every 250 ms). Run with `npm run bench:export`; BENCH_EXPORT_CONSENTS changes the count.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../src/config.ts';
import { createDb, migrate } from '../src/db/database.ts';
import { newId } from '../src/db/ids.ts';
import { seedDemo } from '../src/demo.ts';
import { ConsentWriter } from '../src/modules/consents/consent-writer.ts';
import { serverArgs, startChild } from './processes.ts';

const CONSENTS = Number(process.env.BENCH_EXPORT_CONSENTS ?? 5_000);
const services = Object.fromEntries(Array.from({ length: 80 }, (_, key) => [`vendor-${key}`, Array.from({ length: 200 }, (_, name) => `s${name}`)]));

async function seed(env: Record<string, string>): Promise<{ accountId: string; token: string }> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', ...env });
  const db = createDb(config);
  try {
    await migrate(db, config.databaseSchema);
    const demo = await seedDemo(db.kysely);
    const writer = new ConsentWriter(db, { maxBatch: 100, maxQueue: CONSENTS, concurrency: 2 });
    await Promise.all(Array.from({ length: CONSENTS }, (_, i) => writer.write({
      id: newId(), account_id: demo.account.id, session_id: `probe-${i}`, user_id: null,
      user_preferences: { accept_type: 'custom', accepted_categories: [], rejected_categories: [], accepted_services: services, rejected_services: {} },
      url: 'https://shop.example.com/', user_agent: 'bench', ip_address: '192.0.2.0', gpc: false, created_at: new Date(),
    })));
    await writer.close();
    return { accountId: demo.account.id, token: demo.tokens.account };
  } finally {
    await db.close();
  }
}

/** Asks `/healthz` every 250 ms until told to stop, then answers the slowest answer's time and the failures. */
const HEALTH_POLLER = `
  const { parentPort, workerData: url } = require('node:worker_threads');
  let running = true, slowest = 0, failures = 0;
  parentPort.once('message', () => { running = false; });
  (async () => {
    while (running) {
      const started = performance.now();
      try { if (!(await fetch(url, { signal: AbortSignal.timeout(10000) })).ok) failures++; } catch { failures++; }
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    parentPort.postMessage({ slowest, failures });
  })();
`;

const rssMiB = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

async function measure(engine: string, env: Record<string, string>) {
  const seeded = await seed(env);
  const server = await startChild(serverArgs(), { ...env, LOG_LEVEL: 'warn' }, '/readyz');
  try {
    for (const format of ['csv', 'ndjson']) {
      const pid = server.process.pid!;
      const rssBefore = rssMiB(pid);
      let rssMax = 0;
      const sampler = setInterval(() => { rssMax = Math.max(rssMax, rssMiB(pid)); }, 100);
      // Asked from a thread of its own, so that reading the export here does not delay the asking.
      const health = new Worker(HEALTH_POLLER, { eval: true, workerData: `${server.url}/healthz` });
      const started = performance.now();
      const res = await fetch(`${server.url}/api/v1/consents/export?format=${format}`, { headers: { authorization: `Bearer ${seeded.token}` } });
      let bytes = 0;
      let lines = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      }
      const seconds = (performance.now() - started) / 1000;
      const polled = new Promise<{ slowest: number; failures: number }>((resolve) => health.once('message', resolve));
      health.postMessage('stop');
      const { slowest: healthMaxMs, failures: healthFailures } = await polled;
      clearInterval(sampler);
      const alive = server.process.exitCode === null;
      console.log(JSON.stringify({
        engine, format, consents: CONSENTS, status: res.status, lines, mb: Math.round(bytes / 1e6), seconds: Number(seconds.toFixed(1)),
        rss_before_mib: rssBefore, rss_max_mib: rssMax, rss_peak_mib: server.peakRssMiB(), healthz_slowest_ms: Math.round(healthMaxMs), healthz_failures: healthFailures, alive,
      }));
    }
  } finally {
    await server.kill();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'consentry-export-'));
try {
  await measure('embedded', { DATABASE_URL: '', DATA_DIR: dataDir });
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
if (process.env.DATABASE_URL) {
  const schema = `bench_export_${process.pid}`;
  try {
    await measure('postgres', { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema });
  } finally {
    const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
    const db = createDb(config);
    await db.kysely.schema.dropSchema(schema).ifExists().cascade().execute();
    await db.close();
  }
}
