/**
 * The banner's time to show, against vanilla-cookieconsent alone on the same page: Chromium opens a
 * page of a site on loopback as a new visitor (no cache, no cookies), and the page notes when the
 * library marks its banner shown (the `show--consent` class on <html>, the same library in both)
 * and the next frame after it. Variants, alternated run by run:
 *
 * - `library alone`: vanilla-cookieconsent's script and stylesheet from another origin (a CDN's
 *   place), run with a similar configuration when the page is parsed, as our script runs it;
 * - `ours, region asked`: our script for the demo account, from the same CDN (a copy of what the real
 *   server, `npm start`'s bundle, serves), for a visitor whose clock is New York's (which US states
 *   keep: the shipped rules differ there) and who on loopback is nowhere: opt-in, once
 *   `GET /widget/{id}/region` has passed through the CDN to the server and back;
 * - `ours, data-region`: the same with `data-region="DE"` on the tag: opt-in, no request;
 * - and in a browser whose clock is Berlin's, the library alone again and `ours, clock in Berlin`:
 *   the shipped rules give opt-in in every country that keeps that clock, so opt-in, no request.
 * Each browser is started with its clock (`TZ`: emulating a time zone slows every page), and each of
 * ours is put against the library alone with the same clock.
 *
 * The site with its CDN is one process (bench/banner-site.ts), the service another, so that neither
 * shares the measuring process's time. BENCH_BANNER_RUNS (31) runs per variant after one
 * warm-up round. Prints the medians and p90 in ms from the navigation's start, each of ours against
 * the library alone, and the region request's own time.
 *
 * Loopback answers in well under a millisecond, which no visitor sees; so the whole set is run again
 * for each BENCH_BANNER_LATENCY_MS (`0,20`: loopback, then 20 ms added to every request by Chromium's
 * network emulation, a visitor near the CDN and the site).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config.ts';
import { createDb, migrate } from '../src/db/database.ts';
import { seedDemo } from '../src/demo.ts';
import { serverArgs, startChild } from './processes.ts';

const RUNS = Number(process.env.BENCH_BANNER_RUNS ?? 31);
const LATENCIES = (process.env.BENCH_BANNER_LATENCY_MS ?? '0,20').split(',').map(Number);

/** Notes, in the page, when the banner is marked shown and the frame after it (a string: tsx would wrap a function). */
const WATCH_BANNER = `(() => {
  // There is no <html> yet when this runs: the whole document is watched.
  new MutationObserver(() => {
    if (window.shownAt !== undefined || !document.documentElement.classList.contains('show--consent')) return;
    window.shownAt = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => { window.paintedAt = performance.now(); }));
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ['class'] });
})();`;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

type Browser = Awaited<ReturnType<typeof chromium.launch>>;
/** A page to time, in the browser whose clock is in `clock`; `library` is the baseline of that clock. */
type Variant = { name: string; path: string; clock: string; library?: true };

/** Runs every variant RUNS times with `latency` ms added to each request, and prints the table. */
async function measure(browsers: Map<string, Browser>, shop: string, variants: Variant[], latency: number) {
  const shown = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  const painted = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  /** The region request's own time (resource timing: from its start to its answer's end). */
  const asked: number[] = [];
  for (let run = -1; run < RUNS; run++) {
    // Each round in another order: no variant always follows the same one.
    const order = variants.map((_, i) => variants[(i + run + 1) % variants.length]);
    for (const variant of order) {
      const context = await browsers.get(variant.clock)!.newContext();
      await context.addInitScript(WATCH_BANNER);
      const page = await context.newPage();
      if (latency > 0) {
        const cdp = await context.newCDPSession(page);
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', { offline: false, latency, downloadThroughput: -1, uploadThroughput: -1 });
      }
      await page.goto(`${shop}${variant.path}`);
      await page.waitForFunction(() => (window as any).paintedAt !== undefined, undefined, { timeout: 10_000 });
      const times = await page.evaluate(() => [
        (window as any).shownAt as number,
        (window as any).paintedAt as number,
        (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((entry) => entry.name.endsWith('/region'))?.duration,
      ]);
      await context.close();
      if (run < 0) continue;
      shown.get(variant.name)!.push(times[0]!);
      painted.get(variant.name)!.push(times[1]!);
      if (times[2] !== undefined) asked.push(times[2]);
    }
  }
  const network = latency > 0 ? `${latency} ms added to every request` : 'loopback';
  console.log(`${network}: ${RUNS} runs per variant, ms from the navigation's start; × = median against the library alone with the same clock`);
  for (const variant of variants) {
    const library = variants.find((candidate) => candidate.library && candidate.clock === variant.clock)!;
    const base = percentile(shown.get(library.name)!, 50);
    const basePainted = percentile(painted.get(library.name)!, 50);
    const s = shown.get(variant.name)!;
    const p = painted.get(variant.name)!;
    console.log(
      `${variant.name.padEnd(22)} shown p50 ${percentile(s, 50).toFixed(1)} p90 ${percentile(s, 90).toFixed(1)} (×${(percentile(s, 50) / base).toFixed(2)})` +
        `   painted p50 ${percentile(p, 50).toFixed(1)} p90 ${percentile(p, 90).toFixed(1)} (×${(percentile(p, 50) / basePainted).toFixed(2)})`,
    );
  }
  if (asked.length > 0) {
    console.log(`GET /widget/{id}/region in the page: p50 ${percentile(asked, 50).toFixed(1)} p90 ${percentile(asked, 90).toFixed(1)} (n=${asked.length})`);
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'consentry-bench-banner-'));
  const env = { DATABASE_URL: '', DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000000000', WIDGET_RATE_LIMIT_PER_MIN: '1000000000', LOG_LEVEL: 'warn' };
  const seeding = createDb(loadConfig({ ...process.env, ...env }));
  await migrate(seeding);
  const demo = await seedDemo(seeding.kysely);
  await seeding.close();
  const server = await startChild(serverArgs(), env, '/readyz');

  const site = await startChild(['--import', 'tsx', 'bench/banner-site.ts'], { SERVICE: server.url, ACCOUNT_ID: demo.account.id }, '/library');
  const shop = site.url.replace('127.0.0.1', 'localhost');

  const variants: Variant[] = [
    { name: 'library alone', path: '/library', clock: 'America/New_York', library: true },
    { name: 'ours, region asked', path: '/ours', clock: 'America/New_York' },
    { name: 'ours, data-region', path: '/ours?region=DE', clock: 'America/New_York' },
    { name: 'library, Berlin', path: '/library', clock: 'Europe/Berlin', library: true },
    { name: 'ours, clock in Berlin', path: '/ours', clock: 'Europe/Berlin' },
  ];
  const browsers = new Map<string, Browser>();
  for (const clock of new Set(variants.map((variant) => variant.clock))) {
    browsers.set(clock, await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      env: { ...process.env, TZ: clock },
    }));
  }
  try {
    for (const latency of LATENCIES) await measure(browsers, shop, variants, latency);
  } finally {
    for (const browser of browsers.values()) await browser.close();
    await site.kill('SIGTERM');
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
