/**
 * `npx tsx bench/geoip.ts`: what locating visitors by the shipped GeoIP database (DB-IP Lite) costs.
 * Load: time to read each file and the RSS it adds (IPv4 file, then IPv6 file). Lookup: CPU
 * microseconds (user and system: what waiting for a busy machine's cores does not inflate) per
 * `locate()` of a visitor (address normalising, lookup, record reading, as the service calls it), for
 * IPv4, IPv6 and IPv4-mapped IPv6 addresses spread over the whole address space (the worst case for
 * the record cache), and for 1,000 recurring IPv4 addresses (a site's usual traffic); BENCH_RUNS (5)
 * runs of BENCH_LOOKUPS (100000) each, the median run is the figure.
 */
import { GeoDatabase, shippedDatabaseFiles } from '../src/geo/geoip.ts';
import { createLocator } from '../src/geo/locate.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 100_000);
const MB = 1024 * 1024;

/** A fixed sequence of pseudo-random numbers, so that every run looks the same addresses up. */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
}

const next = numbers(46);
const ipv4 = Array.from({ length: 10_000 }, () => {
  const n = next();
  return `${(n >>> 24) % 223 + 1}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
});
// Inside ranges that are allocated and used (Google, Cloudflare, Deutsche Telekom, Comcast, Free, …).
const v6Prefixes = ['2001:4860', '2606:4700', '2003:e0', '2601:1c0', '2a01:e0a', '2a02:908', '2804:14c', '240e:3b7'];
const ipv6 = Array.from({ length: 10_000 }, (_, i) => {
  const hex = () => (next() & 0xffff).toString(16);
  return `${v6Prefixes[i % v6Prefixes.length]}:${hex()}:${hex()}::${hex()}`;
});
const mapped = ipv4.map((address) => `::ffff:${address}`);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rssMb = () => process.memoryUsage().rss / MB;

const [v4File, v6File] = shippedDatabaseFiles();
const loads: Array<{ file: string; ms: number; rssMb: number }> = [];
for (const [file, probe] of [[v4File, '8.8.8.8'], [v6File, '2001:4860:4860::8888']] as const) {
  const before = rssMb();
  const started = performance.now();
  await new GeoDatabase([file]).lookup(probe);
  loads.push({ file: file.split('/').at(-1)!, ms: performance.now() - started, rssMb: rssMb() - before });
}

const locator = createLocator({ databaseFiles: [v4File, v6File] });

async function microsecondsPerLocate(addresses: string[]): Promise<{ us: number; placed: number }> {
  let placed = 0;
  const start = process.cpuUsage();
  for (let i = 0; i < LOOKUPS; i++) {
    const found = await locator.locate({ ip: addresses[i % addresses.length], headers: {} });
    if (found.country !== null) placed++;
  }
  const used = process.cpuUsage(start);
  return { us: (used.user + used.system) / LOOKUPS, placed: placed / LOOKUPS };
}

const results: Record<string, { us: number; placed: number }> = {};
const sets = { IPv4: ipv4, IPv6: ipv6, 'IPv4-mapped IPv6': mapped, '1,000 recurring IPv4': ipv4.slice(0, 1000) };
for (const [name, addresses] of Object.entries(sets)) {
  await microsecondsPerLocate(addresses.slice(0, 2000)); // warm-up
  const runs = [];
  for (let run = 0; run < RUNS; run++) runs.push(await microsecondsPerLocate(addresses));
  results[name] = { us: median(runs.map((r) => r.us)), placed: runs[0].placed };
}

console.log('load (first lookup of each file):');
for (const load of loads) console.log(`  ${load.file}: ${load.ms.toFixed(0)} ms, +${load.rssMb.toFixed(0)} MB RSS`);
console.log(`  RSS after both: ${rssMb().toFixed(0)} MB`);
console.log(`locate() per call, CPU time, median of ${RUNS} runs of ${LOOKUPS}:`);
for (const [name, result] of Object.entries(results)) {
  console.log(`  ${name}: ${result.us.toFixed(2)} µs (${(result.placed * 100).toFixed(0)}% placed in a country)`);
}
console.log(`RSS after the lookups (record cache full): ${rssMb().toFixed(0)} MB`);
