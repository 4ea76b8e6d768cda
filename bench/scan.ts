/**
 * The scanner under measure: a 50-page website on loopback scanned by the real server (the
 * `npm start` bundle, embedded database), while one client reads `GET /api/v1/categories` in a
 * loop. Prints the scan's time, the browser's peak memory (all Chromium processes together) and
 * the API's latency before and during the scan.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createDb, migrate } from '../src/db/database.ts';
import { seedDemo } from '../src/demo.ts';
import { startScanSite } from '../test/helpers/scan-site.ts';
import { serverArgs, startChild } from './processes.ts';

const PAGES = 50;
/** The site's own pages besides the chained extra ones (home, about, products…). */
const BASE_PAGES = 8;

function children(): Map<number, number[]> {
  const tree = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      tree.set(parent, [...(tree.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  return tree;
}

/** RSS and PSS (shared pages divided among their sharers) of every process under `root`, in MiB. */
function browserMemory(root: number): { rss: number; pss: number; processes: number } {
  const tree = children();
  const pids: number[] = [];
  const walk = (pid: number) => {
    for (const child of tree.get(pid) ?? []) {
      pids.push(child);
      walk(child);
    }
  };
  walk(root);
  let rss = 0;
  let pss = 0;
  let processes = 0;
  for (const pid of pids) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chromium')) continue;
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      processes += 1;
    } catch {
      // gone meanwhile
    }
  }
  return { rss: Math.round(rss / 1024), pss: Math.round(pss / 1024), processes };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const summary = (values: number[]) =>
  `n=${values.length} p50=${percentile(values, 50).toFixed(1)} ms p95=${percentile(values, 95).toFixed(1)} ms p99=${percentile(values, 99).toFixed(1)} ms max=${Math.max(...values).toFixed(1)} ms`;

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'consentry-bench-scan-'));
  const env = { DATABASE_URL: '', DATA_DIR: dataDir, SCAN_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_MAX: '1000000000', LOG_LEVEL: 'warn' };
  const site = await startScanSite({ extraPages: PAGES - BASE_PAGES });
  const seeding = createDb(loadConfig({ ...process.env, ...env }));
  await migrate(seeding);
  const demo = await seedDemo(seeding.kysely);
  await seeding.kysely.updateTable('accounts').set({ domain: '127.0.0.1' }).where('id', '=', demo.account.id).execute();
  await seeding.close();
  const server = await startChild(serverArgs(), env, '/readyz');
  const headers = { authorization: `Bearer ${demo.tokens.account}`, 'content-type': 'application/json' };
  const categories = async () => {
    const started = performance.now();
    const res = await fetch(`${server.url}/api/v1/categories`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /categories answered ${res.status}`);
    return performance.now() - started;
  };
  try {
    const idle: number[] = [];
    for (let i = 0; i < 300; i++) idle.push(await categories());

    const started = performance.now();
    const created = await fetch(`${server.url}/api/v1/scans`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ scan: { starting_url: `${site.url}/`, max_pages: PAGES } }),
    });
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    const during: number[] = [];
    let peak = { rss: 0, pss: 0, processes: 0 };
    const sampler = setInterval(() => {
      const now = browserMemory(server.process.pid!);
      if (now.pss > peak.pss) peak = now;
    }, 100);
    let scan: { status: string; pages_scanned: number; storage_items_found: number; started_at: string; finished_at: string; report: { pages: unknown[] } };
    let lastPoll = 0;
    for (;;) {
      during.push(await categories());
      if (performance.now() - lastPoll < 250) continue;
      lastPoll = performance.now();
      const res = await fetch(`${server.url}/api/v1/scans/${id}`, { headers });
      scan = ((await res.json()) as { data: typeof scan }).data;
      if (!['queued', 'in_progress'].includes(scan.status)) break;
    }
    clearInterval(sampler);
    const total = (performance.now() - started) / 1000;
    const own = (Date.parse(scan.finished_at) - Date.parse(scan.started_at)) / 1000;
    console.log(`scan: ${scan.status}, ${scan.pages_scanned} pages (${scan.report.pages.length} visits over both passes), ${scan.storage_items_found} items`);
    console.log(`scan time: ${total.toFixed(1)} s from POST to completed (${own.toFixed(1)} s from started_at to finished_at)`);
    console.log(`browser peak: ${peak.pss} MiB PSS, ${peak.rss} MiB RSS summed over ${peak.processes} Chromium processes`);
    console.log(`server peak RSS (VmHWM): ${server.peakRssMiB()} MiB`);
    console.log(`GET /api/v1/categories idle:        ${summary(idle)}`);
    console.log(`GET /api/v1/categories during scan: ${summary(during)}`);
  } finally {
    await server.kill('SIGTERM');
    await site.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
