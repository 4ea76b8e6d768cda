/**
 * `npm run bench`: the hot paths against a bare Fastify route measured in the same run.
 * Options (environment): BENCH_RUNS (3), BENCH_DURATION_S (5), BENCH_CONNECTIONS (64),
 * BENCH_CONSENTS (1000000 on PostgreSQL, 100000 embedded). DATABASE_URL adds the PostgreSQL rounds.
 * While working on one path: BENCH_ENGINES (`embedded,postgres`) and BENCH_ONLY (scenarios whose name
 * contains it) narrow the run; such a run does not overwrite bench/results/latest.md.
 * BENCH_SCHEMA keeps the PostgreSQL rounds' schema: seeded on the first run, reused by the next.
 * BENCH_PROCESSES (1) runs the server as that many processes sharing its port.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createDb, migrate } from '../src/db/database.ts';
import { newId } from '../src/db/ids.ts';
import { seedConsents, seededSessionId } from '../src/modules/consents/consent-seed.ts';
import { seedDemo } from '../src/demo.ts';
import { issueToken } from '../src/modules/tokens/tokens.service.ts';
import { perRequest, sampleCpu, type CpuSample } from './cpu.ts';
import { serverArgs, startChild, type Child } from './processes.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const ENGINES = (process.env.BENCH_ENGINES ?? 'embedded,postgres').split(',');
const ONLY = process.env.BENCH_ONLY;
/** A PostgreSQL schema kept between runs, so that a large account is seeded once (10,000,000: ~13 min). */
const KEPT_SCHEMA = process.env.BENCH_SCHEMA;
/** Server processes sharing the port (`bench/cluster.ts`), as instances behind a load balancer. */
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 1);

interface Scenario {
  name: string;
  connections: number;
  /** A status other than 2xx that is the expected answer (304 to a revalidation), not an error. */
  expectStatus?: number;
  request: (fixture: Fixture) => autocannon.Options;
}

interface Fixture {
  url: string;
  accountId: string;
  accountToken: string;
  categoryId: string;
  /** The ETag of the account's banner script, as a returning browser holds it. */
  scriptEtag: string;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU microseconds per request: the server process, PostgreSQL's processes, the load generator. */
  cpu: CpuSample;
  /** Requests per second over the baseline's, measured just before (each run is paired with one of the baseline). */
  ratio: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(options: autocannon.Options, serverPid: number | undefined, expectStatus?: number): Promise<Figures> {
  const before = sampleCpu(serverPid);
  const result = await autocannon({ ...options, duration: DURATION });
  const expected = expectStatus ? (result.statusCodeStats as Record<string, { count: number }>)[expectStatus]?.count ?? 0 : 0;
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx - expected,
    cpu: perRequest(before, sampleCpu(serverPid), result.requests.total),
    ratio: 1,
  };
}

/** The median run of each figure; errors are summed over the runs. */
function medians(runs: Figures[]): Figures {
  const of = (pick: (f: Figures) => number) => median(runs.map(pick));
  return {
    rps: of((r) => r.rps),
    p50: of((r) => r.p50),
    p99: of((r) => r.p99),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    cpu: { server: of((r) => r.cpu.server), postgres: of((r) => r.cpu.postgres), load: of((r) => r.cpu.load) },
    ratio: of((r) => r.ratio),
  };
}

const auth = (f: Fixture) => ({ authorization: `Bearer ${f.accountToken}`, 'content-type': 'application/json' });
/** More than a run sends at the fastest rate seen here (~40,000 req/s); past it, sessions repeat. */
const REQUESTS_PER_RUN = DURATION * 40_000;
let sequence = 0;

/**
 * Consent requests, each with a new session, built before the run starts. Building them during the
 * run (autocannon's `setupRequest`) cost the load generator ~15–20 µs a request on this machine,
 * CPU taken from the server under test, while the baseline's one fixed request costs it nothing.
 * Each client of the run takes the next prebuilt request instead of its own fixed one.
 */
function consentPosts(url: string, headers: Record<string, string>, prefix: string): autocannon.Options {
  const { host, pathname } = new URL(url);
  const head = `POST ${pathname} HTTP/1.1\r\nHost: ${host}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}`;
  const requests: Buffer[] = [];
  const now = Date.now();
  for (let i = 0; i < REQUESTS_PER_RUN; i++) {
    // Shaped like the banner's, the time the session began in base 36 first: ten sessions a
    // millisecond from now on, so that the next run's (and the next process's) sort after these.
    const session = `${(now + Math.floor(i / 10)).toString(36).padStart(8, '0')}${prefix}-${++sequence}`;
    const body = JSON.stringify({ consent: { session_id: session, user_preferences: { accept_type: 'all' } } });
    requests.push(Buffer.from(`${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`));
  }
  let next = 0;
  return {
    url,
    method: 'POST',
    headers,
    setupClient: (client) => {
      (client as unknown as { getRequestBuffer: () => Buffer }).getRequestBuffer = () => requests[next++ % requests.length];
    },
  };
}

/** Concurrent clients of the listing scenarios: a dashboard's or an export job's, not a crowd's. */
const LIST_CONNECTIONS = 8;

/** `GET /api/v1/consents` with the account token and a query built anew for each request. */
function listings(queries: Array<[string, () => string]>): Scenario[] {
  return queries.map(([name, query]) => ({
    name: `GET /consents, ${name} (${LIST_CONNECTIONS} connections)`,
    connections: LIST_CONNECTIONS,
    request: (f) => ({
      url: `${f.url}/api/v1/consents`,
      headers: auth(f),
      requests: [{ setupRequest: (request) => ({ ...request, path: `/api/v1/consents?${query()}` }) }],
    }),
  }));
}

const SCENARIOS: Scenario[] = [
  {
    name: 'public consent recording (POST /widget/{id}/consents)',
    connections: CONNECTIONS,
    request: (f) => consentPosts(`${f.url}/widget/${f.accountId}/consents`, { 'content-type': 'application/json' }, 'widget'),
  },
  {
    name: 'authenticated POST /consents',
    connections: CONNECTIONS,
    request: (f) => consentPosts(`${f.url}/api/v1/consents`, auth(f), 'api'),
  },
  ...listings([
    ['first page', () => ''],
    ['offset=10000', () => 'offset=10000'],
    ['session_id', () => `session_id=${seededSessionId(Math.floor(Math.random() * 1000))}`],
    ['user_id', () => `user_id=user-${Math.floor(Math.random() * 1000)}`],
    // Eleven of the seeded year's twelve months: the exact count adds up the rollups of its whole days.
    ['created_after, 330 of 365 days', () => `created_after=${new Date(Date.now() - 330 * 86_400_000).toISOString()}`],
  ]),
  {
    name: 'banner script GET /widget/{id}.js (warm, brotli)',
    connections: CONNECTIONS,
    request: (f) => ({ url: `${f.url}/widget/${f.accountId}.js`, headers: { 'accept-encoding': 'gzip, deflate, br' } }),
  },
  {
    name: 'banner script GET /widget/{id}.js revalidated (If-None-Match, 304)',
    connections: CONNECTIONS,
    expectStatus: 304,
    request: (f) => ({ url: `${f.url}/widget/${f.accountId}.js`, headers: { 'accept-encoding': 'gzip, deflate, br', 'if-none-match': f.scriptEtag } }),
  },
  {
    // The one uncacheable request of a banner that must learn the visitor's region: located by the
    // shipped GeoIP database (a Californian address, as a balancer in front would pass it on).
    name: 'banner region GET /widget/{id}/region (8.8.8.8 through the proxy)',
    connections: CONNECTIONS,
    request: (f) => ({ url: `${f.url}/widget/${f.accountId}/region`, headers: { 'x-forwarded-for': '8.8.8.8' } }),
  },
  {
    name: 'GET /stats, a year by day (1 connection)',
    connections: 1,
    request: (f) => {
      const to = new Date().toISOString().slice(0, 10);
      const from = new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
      return { url: `${f.url}/api/v1/stats?from=${from}&to=${to}&interval=day`, headers: auth(f) };
    },
  },
  {
    name: 'authenticated GET /categories/{id}',
    connections: CONNECTIONS,
    request: (f) => ({ url: `${f.url}/api/v1/categories/${f.categoryId}`, headers: auth(f) }),
  },
];

const LIMITS = {
  RATE_LIMIT_MAX: '1000000000', WIDGET_RATE_LIMIT_PER_MIN: '1000000000', AUTH_RATE_LIMIT_PER_MIN: '1000000000',
  // The load comes from loopback as from a balancer: the region scenario's address is believed.
  TRUST_PROXY: 'loopback',
};

interface Seeded {
  accountId: string;
  accountToken: string;
  categoryId: string;
  /** Consents in the account when the rounds start, and the seconds it took to seed them. */
  consents: number;
  seedSeconds: number;
  /** The account was found in the kept schema (BENCH_SCHEMA), not seeded. */
  reused: boolean;
}

/**
 * Creates the tenant, a category and the large account's consents, before the server opens the
 * database; in a kept schema that has them already, gives its account a new token instead.
 */
async function seed(env: Record<string, string>, consents: number): Promise<Seeded> {
  const config = loadConfig({ ...process.env, ...env });
  const db = createDb(config);
  try {
    await migrate(db, config.databaseSchema);
    const kept = KEPT_SCHEMA && await db.kysely.selectFrom('accounts').innerJoin('account_consent_counts as n', 'n.account_id', 'accounts.id')
      .select(['accounts.id', 'accounts.owner_id', 'n.consents']).orderBy('n.consents', 'desc').executeTakeFirst();
    if (kept) {
      const category = await db.kysely.selectFrom('categories').select('id').where('account_id', '=', kept.id).orderBy('created_at').executeTakeFirstOrThrow();
      const { token } = await issueToken(db.kysely, { type: 'account', kind: 'api', name: 'bench', userId: kept.owner_id ?? undefined, accountId: kept.id });
      return { accountId: kept.id, accountToken: token, categoryId: category.id, consents: Number(kept.consents), seedSeconds: 0, reused: true };
    }
    const demo = await seedDemo(db.kysely);
    const started = performance.now();
    // A year of daily data, so that the statistics row reads a year of rollups.
    await seedConsents(db.kysely, demo.account.id, consents, 365);
    const seedSeconds = (performance.now() - started) / 1000;
    return { accountId: demo.account.id, accountToken: demo.tokens.account, categoryId: demo.categories[0].id, consents, seedSeconds, reused: false };
  } finally {
    await db.close();
  }
}

/**
 * The bare Fastify server, running for the whole benchmark: every scenario run is paired with a
 * baseline run just before it, so that a ratio compares two measurements taken under the same
 * conditions (a shared machine's speed drifts over minutes).
 */
class Baseline {
  readonly runs: Figures[] = [];
  private constructor(private readonly server: Child) {}

  static async start(): Promise<Baseline> {
    return new Baseline(await startChild(['--import', 'tsx', 'bench/baseline.ts'], {}, '/'));
  }

  async measure(): Promise<Figures> {
    const figures = await measure({ url: this.server.url, connections: CONNECTIONS }, this.server.process.pid);
    this.runs.push(figures);
    return figures;
  }

  /** The bare server's POST of consent bodies, paired like the scenarios. */
  bareConsentPosts(): Promise<Figures> {
    const request = () => consentPosts(`${this.server.url}/consents`, { 'content-type': 'application/json' }, 'bare');
    return paired(this, request, CONNECTIONS, this.server.process.pid);
  }

  /** The bare server's GET of a body as large as the banner script, paired like the scenarios. */
  bareBytes(size: number): Promise<Figures> {
    return paired(this, () => ({ url: `${this.server.url}/bytes/${size}` }), CONNECTIONS, this.server.process.pid);
  }

  stop(): Promise<void> {
    return this.server.kill();
  }
}

/**
 * RUNS runs of a load (built anew for each run) against the process `pid`, each paired with a
 * baseline run just before it: the medians, the ratio the median of the paired ratios.
 */
async function paired(
  baseline: Baseline, request: () => autocannon.Options, connections: number, pid: number | undefined, expectStatus?: number,
): Promise<Figures> {
  const runs: Figures[] = [];
  for (let run = 0; run < RUNS; run++) {
    const base = await baseline.measure();
    const figures = await measure({ ...request(), connections }, pid, expectStatus);
    runs.push({ ...figures, ratio: figures.rps / base.rps });
  }
  return medians(runs);
}

async function rounds(target: Child, fixture: Fixture, baseline: Baseline) {
  const results: Record<string, Figures> = {};
  for (const scenario of SCENARIOS.filter((s) => !ONLY || s.name.includes(ONLY))) {
    results[scenario.name] = await paired(baseline, () => scenario.request(fixture), scenario.connections, target.process.pid, scenario.expectStatus);
    process.stderr.write(`  ${scenario.name}: ${JSON.stringify(results[scenario.name])}\n`);
  }
  return { results, peakRssMiB: target.peakRssMiB() };
}

async function engine(name: 'embedded' | 'postgres', baseline: Baseline) {
  const dataDir = mkdtempSync(join(tmpdir(), 'consentry-bench-'));
  const schema = KEPT_SCHEMA ?? `bench_${newId().replace(/-/g, '').slice(-12)}`;
  const env: Record<string, string> = name === 'postgres'
    ? { ...LIMITS, DATABASE_URL: process.env.DATABASE_URL!, DATABASE_SCHEMA: schema }
    : { ...LIMITS, DATABASE_URL: '', DATA_DIR: dataDir };
  const wanted = Number(process.env.BENCH_CONSENTS ?? (name === 'postgres' ? 1_000_000 : 100_000));
  process.stderr.write(`${name}: seeding ${wanted} consents (unless the kept schema holds them)…\n`);
  const seeded = await seed(env, wanted);
  const { consents } = seeded;
  const server = await startChild(serverArgs(PROCESSES), env, '/readyz');
  try {
    // Warm: the script is built on its first request, then served from memory.
    const script = await fetch(`${server.url}/widget/${seeded.accountId}.js`, { headers: { 'accept-encoding': 'gzip' } });
    await script.arrayBuffer();
    process.stderr.write(`  banner script: ${script.headers.get('content-length')} bytes gzip, ETag ${script.headers.get('etag')}\n`);
    const stored = name === 'postgres' ? await storage(env, schema) : undefined;
    const measured = await rounds(server, { url: server.url, ...seeded, scriptEtag: script.headers.get('etag') ?? '' }, baseline);
    const growth = stored && perRecordedConsent(stored, await storage(env, schema));
    // What sending that many bytes costs by itself: the script row's yardstick beside the bare baseline's.
    const brotli = await fetch(`${server.url}/widget/${seeded.accountId}.js`, { headers: { 'accept-encoding': 'br' } });
    const size = Number(brotli.headers.get('content-length'));
    await brotli.arrayBuffer();
    const reference = `bare Fastify GET of ${size} bytes, the size of the brotli banner script (reference)`;
    if (!ONLY || reference.includes(ONLY)) {
      measured.results[reference] = await baseline.bareBytes(size);
      process.stderr.write(`  ${reference}: ${JSON.stringify(measured.results[reference])}\n`);
    }
    return { engine: name, consents, seedSeconds: Math.round(seeded.seedSeconds * 10) / 10, reused: seeded.reused, growth, ...measured };
  } finally {
    await server.kill();
    if (name === 'postgres' && !KEPT_SCHEMA) {
      const db = createDb(loadConfig({ ...process.env, ...env }));
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.kysely);
      await db.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Stored {
  consents: number;
  /** Every table and index of the schema, on disk. */
  bytes: number;
  /** The server's WAL position (shared by every database of the server: quote it from a quiet one). */
  wal: bigint;
}

/** What the schema holds now: consents, bytes, and the WAL position. */
async function storage(env: Record<string, string>, schema: string): Promise<Stored> {
  const db = createDb(loadConfig({ ...process.env, ...env }));
  try {
    const row = await sql<{ consents: string; bytes: string; wal: string }>`select
        (select count(*) from consents)::text as consents,
        (select sum(pg_total_relation_size(c.oid)) from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = ${schema} and c.relkind in ('r', 'p'))::text as bytes,
        (pg_current_wal_lsn() - '0/0'::pg_lsn)::text as wal`.execute(db.kysely);
    const { consents, bytes, wal } = row.rows[0];
    return { consents: Number(consents), bytes: Number(bytes), wal: BigInt(wal.split('.')[0]) };
  } finally {
    await db.close();
  }
}

/** Bytes on disk and WAL bytes per consent recorded through the routes during the rounds. */
function perRecordedConsent(before: Stored, after: Stored) {
  const recorded = after.consents - before.consents;
  if (recorded <= 0) return undefined;
  return { recorded, bytes: Math.round((after.bytes - before.bytes) / recorded), wal: Math.round(Number(after.wal - before.wal) / recorded) };
}

const BARE_POST = 'bare Fastify POST of the consent body (reference: no validation, no database)';

function table(base: Figures, barePost: Figures | undefined, engines: Awaited<ReturnType<typeof engine>>[]): string {
  const cpu = (f: Figures, postgres: boolean) => `${f.cpu.server} | ${postgres ? f.cpu.postgres : '—'} | ${f.cpu.load}`;
  const lines = [
    `Runs: ${RUNS} × ${DURATION}s, medians; ${CONNECTIONS} connections unless stated; ${PROCESSES} server process${PROCESSES > 1 ? 'es' : ''}; each run paired with a baseline run ` +
      `(× baseline: the median of the paired ratios; the baseline row: the median of all its runs); ${new Date().toISOString()}`,
    '',
    '| engine | scenario | req/s | × baseline | p50 ms | p99 ms | errors | CPU µs/req: server | PostgreSQL | load generator |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| — | bare Fastify baseline | ${base.rps} | 1.00 | ${base.p50} | ${base.p99} | 0 | ${cpu(base, false)} |`,
  ];
  if (barePost) {
    const f = barePost;
    lines.push(`| — | ${BARE_POST} | ${f.rps} | ${f.ratio.toFixed(2)} | ${f.p50} | ${f.p99} | ${f.errors} | ${cpu(f, false)} |`);
  }
  for (const e of engines) {
    for (const [name, f] of Object.entries(e.results)) {
      lines.push(`| ${e.engine} | ${name} | ${f.rps} | ${f.ratio.toFixed(2)} | ${f.p50} | ${f.p99} | ${f.errors} | ${cpu(f, e.engine === 'postgres')} |`);
    }
    const account = e.reused ? `the kept schema's account of ${e.consents} consents` : `seeded ${e.consents} consents in ${e.seedSeconds}s`;
    lines.push(`| ${e.engine} | peak RSS ${e.peakRssMiB} MiB; ${account} | | | | | | | | |`);
    if (e.growth) {
      lines.push(`| ${e.engine} | ${e.growth.recorded} consents recorded in the rounds: ${e.growth.bytes} bytes stored per consent (tables + indexes + visitor bookkeeping), ${e.growth.wal} WAL bytes per consent | | | | | | | | |`);
    }
  }
  return lines.join('\n');
}

const baseline = await Baseline.start();
const engines = [];
let barePost: Figures | undefined;
try {
  if (!ONLY || BARE_POST.includes(ONLY)) {
    barePost = await baseline.bareConsentPosts();
    process.stderr.write(`  ${BARE_POST}: ${JSON.stringify(barePost)}\n`);
  }
  if (ENGINES.includes('embedded')) engines.push(await engine('embedded', baseline));
  if (ENGINES.includes('postgres') && process.env.DATABASE_URL) engines.push(await engine('postgres', baseline));
} finally {
  await baseline.stop();
}
const base = medians(baseline.runs);
const report = table(base, barePost, engines);
mkdirSync('bench/results', { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
writeFileSync(`bench/results/${stamp}.json`, JSON.stringify({ baseline: base, barePost, engines, runs: RUNS, durationS: DURATION }, null, 2));
// Both engines, every scenario: a run without DATABASE_URL (the embedded engine alone) keeps the last table.
const complete = engines.length === 2 && !ONLY && !process.env.BENCH_ENGINES && !KEPT_SCHEMA && PROCESSES === 1 && !process.env.BENCH_PROFILE;
if (complete) writeFileSync('bench/results/latest.md', `${report}\n`);
process.stdout.write(`${report}\n`);
