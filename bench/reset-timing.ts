/**
 * `npm run bench:reset`: whether the time of `POST /api/v1/password/reset`'s answer tells a known
 * email from an unknown one. The server runs as `npm start` runs it, with SMTP to a local inbox so
 * that a known email's link is stored and mailed as in production. One client sends BENCH_RESET_TRIES
 * (400) requests of each kind, shuffled, one after another, and times each answer; it prints the two
 * medians, their difference and a rank test's z (|z| above ~2 is a difference the sample shows).
 * A known email's work runs after its answer, so the next request may pay for it: the medians of
 * the requests that follow each kind are printed too. Embedded database, and PostgreSQL when
 * DATABASE_URL is set (a fresh schema, dropped afterwards); BENCH_ENGINES narrows them, and
 * BENCH_RESET_NO_SMTP=1 leaves SMTP out (the link is stored, the email only logged).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { createDb, migrate } from '../src/db/database.ts';
import { newId } from '../src/db/ids.ts';
import { insertUser } from '../src/modules/users/users.repository.ts';
import { startInbox } from '../test/helpers/inbox.ts';
import { serverArgs, startChild } from './processes.ts';

const TRIES = Number(process.env.BENCH_RESET_TRIES ?? 400);
const WARM_UP = 50;
const ENGINES = (process.env.BENCH_ENGINES ?? 'embedded,postgres').split(',');

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Mann–Whitney U of `a` against `b` as a z score (normal approximation, ties given their mean rank). */
function rankZ(a: number[], b: number[]): number {
  const all = [...a.map((value) => ({ value, inA: true })), ...b.map((value) => ({ value, inA: false }))].sort((x, y) => x.value - y.value);
  let rankSumA = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j < all.length && all[j].value === all[i].value) j++;
    const rank = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (all[k].inA) rankSumA += rank;
    i = j;
  }
  const u = rankSumA - (a.length * (a.length + 1)) / 2;
  const mean = (a.length * b.length) / 2;
  const sd = Math.sqrt((a.length * b.length * (a.length + b.length + 1)) / 12);
  return (u - mean) / sd;
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

async function engine(name: string) {
  const inbox = await startInbox();
  const dataDir = mkdtempSync(join(tmpdir(), 'consentry-bench-reset-'));
  const schema = `bench_reset_${newId().replace(/-/g, '').slice(-12)}`;
  const env: Record<string, string> = {
    ...(name === 'postgres' ? { DATABASE_URL: process.env.DATABASE_URL!, DATABASE_SCHEMA: schema } : { DATABASE_URL: '', DATA_DIR: dataDir }),
    ...(process.env.BENCH_RESET_NO_SMTP ? {} : { SMTP_URL: inbox.url }),
    PUBLIC_URL: 'https://consent.example.test',
    AUTH_RATE_LIMIT_PER_MIN: '1000000000',
    LOG_LEVEL: 'warn',
  };
  const seeding = createDb(loadConfig({ ...process.env, ...env }));
  await migrate(seeding, env.DATABASE_SCHEMA);
  const known = await insertUser(seeding.kysely, { name: 'Known', email: `known-${newId()}@example.test`, passwordHash: 'not used' });
  await seeding.close();
  const server = await startChild(serverArgs(), env, '/readyz');
  const ask = async (email: string) => {
    const started = performance.now();
    const res = await fetch(`${server.url}/api/v1/password/reset`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }),
    });
    await res.arrayBuffer();
    if (res.status !== 202) throw new Error(`POST /password/reset answered ${res.status}`);
    return performance.now() - started;
  };
  try {
    const kinds = shuffled([...Array(TRIES).fill('known'), ...Array(TRIES).fill('unknown')]) as ('known' | 'unknown')[];
    for (let i = 0; i < WARM_UP; i++) await ask(i % 2 ? known.email : `warm-${i}@example.test`);
    const times = { known: [] as number[], unknown: [] as number[] };
    const after = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < kinds.length; i++) {
      const ms = await ask(kinds[i] === 'known' ? known.email : `nobody-${i}@example.test`);
      times[kinds[i]].push(ms);
      if (i > 0) after[kinds[i - 1]].push(ms);
    }
    // Every known request's link was mailed: the work the answer no longer waits for did happen.
    const wanted = TRIES + WARM_UP / 2;
    for (let i = 0; i < 600 && inbox.mails.length < wanted; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const f = (ms: number) => ms.toFixed(2);
    console.log(`${name}: ${TRIES} requests of each kind, shuffled, one client`);
    console.log(`  known email    median ${f(median(times.known))} ms`);
    console.log(`  unknown email  median ${f(median(times.unknown))} ms`);
    console.log(`  difference     ${f(median(times.known) - median(times.unknown))} ms, rank test z = ${rankZ(times.known, times.unknown).toFixed(1)}`);
    console.log(`  the request after a known one ${f(median(after.known))} ms, after an unknown one ${f(median(after.unknown))} ms (z = ${rankZ(after.known, after.unknown).toFixed(1)})`);
    console.log(`  emails received: ${inbox.mails.length} of ${wanted}`);
  } finally {
    await server.kill();
    await inbox.close();
    if (name === 'postgres') {
      const db = createDb(loadConfig({ ...process.env, ...env }));
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.kysely);
      await db.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  for (const name of ENGINES) {
    if (name === 'postgres' && !process.env.DATABASE_URL) continue;
    await engine(name);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
