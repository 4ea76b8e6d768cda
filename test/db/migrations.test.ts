/**
 * Migrations that move data, each run on a database migrated up to just before it and holding the
 * data it moves.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { sql, Migrator, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createDb, migrate, type Db } from '../../src/db/database.ts';
import { newId } from '../../src/db/ids.ts';
import * as contentTranslations from '../../src/db/migrations/2026_11_29_0510_content_translations.ts';
import * as consentRegions from '../../src/db/migrations/2026_12_06_1001_consent_regions.ts';
import * as consentTcfStrings from '../../src/db/migrations/2026_12_07_4702_consent_tcf_strings.ts';
import * as noticeSnapshots from '../../src/db/migrations/2026_12_07_4911_notice_snapshots.ts';
import { migrationProvider } from '../../src/db/migrations/index.ts';
import { HyperLogLog } from '../../src/lib/hyperloglog.ts';
import { chain, GENESIS, type Hashable } from '../../src/modules/consents/consent-chain.ts';
import { ConsentWriter } from '../../src/modules/consents/consent-writer.ts';
import { verifyChain } from '../../src/modules/consent-proof/consent-proof.service.ts';
import { fromStored } from '../../src/modules/consents/consents.repository.ts';
import type { UserPreferences } from '../../src/db/schema.ts';
import { ENGINE } from '../helpers/app.ts';
import { freshDataDir } from '../helpers/embedded-template.ts';

/**
 * Each test migrates a fresh database up to a point and on: on the embedded database that is tens of
 * seconds on a loaded two-core machine (the test files next to it run at the same time).
 */
const MIGRATION_TEST_MS = 120_000;

const opened: { db: Db; schema?: string; dataDir?: string }[] = [];
afterAll(async () => {
  for (const { db, schema, dataDir } of opened) {
    if (schema) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.kysely);
    await db.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
});

/**
 * A fresh database with every migration but `migration` (and those after it) applied: its own schema
 * on PostgreSQL; on the embedded database a copy of the run's template before its first migration
 * (embedded-template.ts), which spares each test PGlite's initdb.
 */
async function databaseBefore(migration: string): Promise<{ db: Db; schema?: string }> {
  const schema = ENGINE === 'postgres' ? `test_${randomBytes(6).toString('hex')}` : undefined;
  const dataDir = ENGINE === 'embedded' ? freshDataDir('empty') : undefined;
  const db = createDb(loadConfig({ DATABASE_URL: ENGINE === 'postgres' ? process.env.DATABASE_URL : '', DATA_DIR: dataDir, DATABASE_SCHEMA: schema }));
  opened.push({ db, schema, dataDir });
  if (schema) await sql`create schema ${sql.id(schema)}`.execute(db.kysely);
  const before = new Migrator({
    db: db.kysely,
    migrationTableSchema: schema,
    allowUnorderedMigrations: true,
    provider: { getMigrations: async () => Object.fromEntries(Object.entries(await migrationProvider.getMigrations()).filter(([name]) => name < migration)) },
  });
  const { error } = await before.migrateToLatest();
  if (error) throw error;
  return { db, schema };
}

const insertAccount = (db: Db, id: string) =>
  sql`insert into accounts (id, name, domain, allowed_domains) values (${id}::uuid, 'Site', 'site.example.com', '{}')`.execute(db.kysely);

describe('2026_11_25_2200_visitor_period_sketches', { timeout: MIGRATION_TEST_MS }, () => {
  it('moves the daily sketches and builds the weekly and monthly ones from them', async () => {
    const { db, schema } = await databaseBefore('2026_11_25_2200_visitor_period_sketches');

    const accounts = [newId(), newId()];
    for (const id of accounts) await insertAccount(db, id);
    // 2026-03-01 is a Sunday: its week started in February.
    const days = ['2026-02-23', '2026-02-28', '2026-03-01', '2026-03-02', '2026-03-15'];
    const sketches = new Map<string, HyperLogLog>();
    for (const [a, accountId] of accounts.entries()) {
      for (const [d, day] of days.entries()) {
        const sketch = new HyperLogLog();
        for (let n = 0; n < 20 + d * 7; n++) sketch.add(`visitor-${a}-${n % (10 + d * 3)}-${d % 2}`);
        sketches.set(`${accountId} ${day}`, sketch);
        await sql`insert into account_daily_sketches (account_id, day, registers) values (${accountId}::uuid, ${day}::date, ${Buffer.from(sketch.registers)})`.execute(db.kysely);
      }
    }

    expect(await migrate(db, schema)).toContain('2026_11_25_2200_visitor_period_sketches');
    const rows = await sql<{ account_id: string; grain: string; start: string; registers: Uint8Array }>`
      select account_id, grain, to_char(start, 'YYYY-MM-DD') as start, registers from account_visitor_sketches order by 1, 2, 3`.execute(db.kysely);
    const union = (accountId: string, picked: string[]) => {
      const merged = new HyperLogLog();
      for (const day of picked) merged.merge(sketches.get(`${accountId} ${day}`)!);
      return Buffer.from(merged.registers).toString('hex');
    };
    const want = accounts.flatMap((accountId) => [
      ...days.map((day) => ({ account_id: accountId, grain: 'day', start: day, registers: union(accountId, [day]) })),
      { account_id: accountId, grain: 'month', start: '2026-02-01', registers: union(accountId, ['2026-02-23', '2026-02-28']) },
      { account_id: accountId, grain: 'month', start: '2026-03-01', registers: union(accountId, ['2026-03-01', '2026-03-02', '2026-03-15']) },
      { account_id: accountId, grain: 'week', start: '2026-02-23', registers: union(accountId, ['2026-02-23', '2026-02-28', '2026-03-01']) },
      { account_id: accountId, grain: 'week', start: '2026-03-02', registers: union(accountId, ['2026-03-02']) },
      { account_id: accountId, grain: 'week', start: '2026-03-09', registers: union(accountId, ['2026-03-15']) },
    ]);
    const got = rows.rows.map((r) => ({ ...r, registers: Buffer.from(r.registers).toString('hex') }));
    const order = (list: typeof want) => [...list].sort((x, y) => `${x.account_id}${x.grain}${x.start}`.localeCompare(`${y.account_id}${y.grain}${y.start}`));
    expect(order(got)).toEqual(order(want));
    const old = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_name = 'account_daily_sketches' and table_schema = current_schema()`.execute(db.kysely);
    expect(old.rows).toEqual([]);
  });
});

describe('2026_11_25_2201_recent_visitors', { timeout: MIGRATION_TEST_MS }, () => {
  it('keeps each account\'s 10 most recently seen sessions and drops the rest', async () => {
    const { db, schema } = await databaseBefore('2026_11_25_2201_recent_visitors');
    const [busy, quiet] = [newId(), newId()];
    for (const id of [busy, quiet]) await insertAccount(db, id);
    const at = (minutes: number) => new Date(Date.UTC(2026, 10, 1) + minutes * 60_000).toISOString();
    for (let n = 0; n < 15; n++) {
      await sql`insert into account_visitors (account_id, session_id, last_seen_at) values (${busy}::uuid, ${`s-${n}`}, ${at(n)}::timestamptz)`.execute(db.kysely);
    }
    await sql`insert into account_visitors (account_id, session_id, last_seen_at) values (${quiet}::uuid, 'only', ${at(0)}::timestamptz)`.execute(db.kysely);
    expect(await migrate(db, schema)).toContain('2026_11_25_2201_recent_visitors');
    const kept = await sql<{ account_id: string; session_id: string }>`select account_id, session_id from account_recent_visitors order by last_seen_at desc`.execute(db.kysely);
    expect(kept.rows.filter((r) => r.account_id === busy).map((r) => r.session_id)).toEqual(Array.from({ length: 10 }, (_, i) => `s-${14 - i}`));
    expect(kept.rows.filter((r) => r.account_id === quiet).map((r) => r.session_id)).toEqual(['only']);
  });
});

describe('2026_11_26_0001_compact_consent_rows', { timeout: MIGRATION_TEST_MS }, () => {
  it('moves the preferences into columns and the hashes into bytes, and the chain still verifies', async () => {
    const { db, schema } = await databaseBefore('2026_11_26_0001_compact_consent_rows');
    const accountId = newId();
    await insertAccount(db, accountId);
    const [a, b] = [newId(), newId()];
    const preferences: UserPreferences[] = [
      { accept_type: 'all', accepted_categories: [a, b], rejected_categories: [], accepted_services: {}, rejected_services: {} },
      { accept_type: 'custom', accepted_categories: [b], rejected_categories: [a], accepted_services: { 'Video, "embeds"': ['YouTube'] }, rejected_services: { Ads: ['X', 'Y'] } },
      { accept_type: 'necessary', accepted_categories: [], rejected_categories: [a, b], accepted_services: {}, rejected_services: {} },
    ];
    const written: Hashable[] = preferences.map((user_preferences, n) => ({
      id: newId(), account_id: accountId, session_id: `s-${n}`, user_id: n === 1 ? 'u-1' : null, user_preferences,
      url: 'https://site.example.com/', user_agent: 'UA', ip_address: '192.0.2.0', gpc: n === 2, created_at: new Date(Date.UTC(2026, 10, 1, n)),
    }));
    const links = chain({ seq: 0, hash: GENESIS }, written);
    for (const [n, c] of written.entries()) {
      await sql`insert into consents (id, account_id, session_id, user_id, user_preferences, url, user_agent, ip_address, gpc, created_at,
          chain_seq, hash, personal_hash, personal_salt)
        values (${c.id}::uuid, ${accountId}::uuid, ${c.session_id}, ${c.user_id}, ${JSON.stringify(c.user_preferences)}::jsonb, ${c.url},
          ${c.user_agent}, ${c.ip_address}, ${c.gpc}, ${c.created_at.toISOString()}::timestamptz,
          ${links[n].seq}, ${links[n].hash}, ${links[n].personal_hash}, ${links[n].personal_salt})`.execute(db.kysely);
    }
    await sql`insert into consent_chain_heads (account_id, seq, hash) values (${accountId}::uuid, 3, ${links[2].hash})`.execute(db.kysely);

    expect(await migrate(db, schema)).toContain('2026_11_26_0001_compact_consent_rows');
    const rows = (await db.kysely.selectFrom('consent_records').selectAll().orderBy('chain_seq').execute()).map(fromStored);
    expect(rows).toEqual(written.map((c, n) => {
      const { seq, ...hashes } = links[n];
      return { ...c, ...hashes, chain_seq: seq, erased_at: null, country: null, region: null, mode: null, gpp_string: null,
        tc_string: null, ac_string: null, notice_hash: null };
    }));
    const stored = await sql<{ accepted: number | null; rejected: number | null; services: number | null }>`
      select pg_column_size(accepted_categories) as accepted, pg_column_size(rejected_categories) as rejected, pg_column_size(accepted_services) as services
      from consent_records order by chain_seq`.execute(db.kysely);
    // Empty lists and maps take no bytes; an id takes 16.
    expect(stored.rows.map((r) => r.rejected === null)).toEqual([true, false, false]);
    expect(stored.rows.map((r) => r.services === null)).toEqual([true, false, true]);
    expect(await verifyChain(db.kysely, accountId)).toEqual({ valid: true, checked: 3, first_bad_id: null });
  });
});

describe('2026_11_26_0002_consent_time_counts', { timeout: MIGRATION_TEST_MS }, () => {
  it('counts what retention already removed from each day, and what each hour holds', async () => {
    const { db, schema } = await databaseBefore('2026_11_26_0002_consent_time_counts');
    const accountId = newId();
    await insertAccount(db, accountId);
    // 2026-03-01 counted 5 and holds 3 (one of them at its last millisecond); 2026-03-02 counted 2
    // and holds both, besides a row outside the chain, which no day counts.
    const rows: Array<[string, number]> = [['2026-03-01T00:00:00Z', 1], ['2026-03-01T12:00:00Z', 2], ['2026-03-01T23:59:59.999Z', 3],
      ['2026-03-02T00:00:00Z', 4], ['2026-03-02T08:00:00Z', 5], ['2026-03-02T09:00:00Z', -1]];
    for (const [at, seq] of rows) {
      await sql`insert into consents (id, account_id, session_id, accept_type, gpc, created_at, chain_seq)
        values (${newId()}::uuid, ${accountId}::uuid, 's', 'all', false, ${at}::timestamptz, ${seq})`.execute(db.kysely);
    }
    await sql`insert into consent_daily_stats (account_id, day, consents) values
      (${accountId}::uuid, '2026-03-01', 5), (${accountId}::uuid, '2026-03-02', 2), (${accountId}::uuid, '2026-03-03', 4)`.execute(db.kysely);
    expect(await migrate(db, schema)).toContain('2026_11_26_0002_consent_time_counts');
    const days = await sql<{ day: string; removed: number }>`select to_char(day, 'YYYY-MM-DD') as day, removed from consent_daily_stats order by day`.execute(db.kysely);
    expect(days.rows).toEqual([{ day: '2026-03-01', removed: 2 }, { day: '2026-03-02', removed: 0 }, { day: '2026-03-03', removed: 4 }]);
    const hours = await sql<{ hour: string; consents: number }>`select to_char(hour at time zone 'UTC', 'YYYY-MM-DD HH24') as hour, consents
      from consent_hourly_counts order by hour`.execute(db.kysely);
    expect(hours.rows).toEqual([{ hour: '2026-03-01 00', consents: 1 }, { hour: '2026-03-01 12', consents: 1 }, { hour: '2026-03-01 23', consents: 1 },
      { hour: '2026-03-02 00', consents: 1 }, { hour: '2026-03-02 08', consents: 1 }]);
  });
});

describe('2026_11_26_0003_consent_choices', { timeout: MIGRATION_TEST_MS }, () => {
  it('stores each account\'s distinct lists once, and every consent and link reads as before', async () => {
    const { db, schema } = await databaseBefore('2026_11_26_0003_consent_choices');
    const accounts = [newId(), newId()];
    for (const id of accounts) await insertAccount(db, id);
    const [a, b] = [newId(), newId()];
    const lists: UserPreferences[] = [
      { accept_type: 'all', accepted_categories: [a, b], rejected_categories: [], accepted_services: {}, rejected_services: {} },
      { accept_type: 'custom', accepted_categories: [b], rejected_categories: [a], accepted_services: { 'Video, "embeds"': ['YouTube'] }, rejected_services: { Ads: ['X'] } },
      { accept_type: 'necessary', accepted_categories: [], rejected_categories: [], accepted_services: {}, rejected_services: {} },
      // The same lists in another order are another choice: the chain hashes the lists as written.
      { accept_type: 'all', accepted_categories: [b, a], rejected_categories: [], accepted_services: {}, rejected_services: {} },
    ];
    const written: Hashable[] = [];
    for (const accountId of accounts) {
      const mine = [0, 1, 0, 2, 3, 1].map((i, n) => ({
        id: newId(), account_id: accountId, session_id: `s-${n}`, user_id: null, user_preferences: lists[i],
        url: null, user_agent: null, ip_address: null, gpc: false, created_at: new Date(Date.UTC(2026, 10, 1, n)),
      }));
      const links = chain({ seq: 0, hash: GENESIS }, mine);
      for (const [n, c] of mine.entries()) {
        const p = c.user_preferences;
        const ids = (list: string[]) => (list.length ? `{${list.join(',')}}` : null);
        const map = (m: Record<string, string[]>) => (Object.keys(m).length ? JSON.stringify(m) : null);
        await sql`insert into consents (id, account_id, session_id, accept_type, accepted_categories, rejected_categories, accepted_services,
            rejected_services, gpc, created_at, chain_seq, hash, personal_hash, personal_salt)
          values (${c.id}::uuid, ${accountId}::uuid, ${c.session_id}, ${p.accept_type}, ${ids(p.accepted_categories)}::uuid[],
            ${ids(p.rejected_categories)}::uuid[], ${map(p.accepted_services)}::jsonb, ${map(p.rejected_services)}::jsonb, false,
            ${c.created_at.toISOString()}::timestamptz, ${links[n].seq}, decode(${links[n].hash}, 'hex'), decode(${links[n].personal_hash}, 'hex'),
            decode(${links[n].personal_salt}, 'hex'))`.execute(db.kysely);
      }
      await sql`insert into consent_chain_heads (account_id, seq, hash) values (${accountId}::uuid, 6, ${links[5].hash})`.execute(db.kysely);
      written.push(...mine);
    }

    expect(await migrate(db, schema)).toContain('2026_11_26_0003_consent_choices');
    const rows = (await db.kysely.selectFrom('consent_records').selectAll().execute()).map(fromStored);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const c of written) expect(byId.get(c.id)).toMatchObject({ ...c, erased_at: null });
    const choices = await sql<{ account_id: string; n: number }>`select account_id, count(*)::int as n from consent_choices group by account_id`.execute(db.kysely);
    expect(Object.fromEntries(choices.rows.map((r) => [r.account_id, r.n]))).toEqual({ [accounts[0]]: 3, [accounts[1]]: 3 });
    const empty = await sql<{ choice_id: string | null }>`select choice_id from consents where session_id = 's-3'`.execute(db.kysely);
    expect(empty.rows).toEqual([{ choice_id: null }, { choice_id: null }]);
    for (const accountId of accounts) expect(await verifyChain(db.kysely, accountId)).toEqual({ valid: true, checked: 6, first_bad_id: null });

    // The writer finds the choices the migration made: its digest is the migration's.
    const writer = new ConsentWriter(db, { maxBatch: 10, maxQueue: 10, concurrency: 1 });
    await Promise.all([0, 1, 3, 4, 5].map((i, n) => writer.write({ ...written[i], id: newId(), session_id: `after-${n}`, created_at: new Date() })));
    await writer.close();
    const after = await sql<{ n: number }>`select count(*)::int as n from consent_choices`.execute(db.kysely);
    expect(after.rows).toEqual([{ n: 6 }]);
    expect(await verifyChain(db.kysely, accounts[0])).toEqual({ valid: true, checked: 11, first_bad_id: null });
  });
});

describe('2026_11_29_0001_scan_owners', { timeout: MIGRATION_TEST_MS }, () => {
  it("gives each scan its account's owner: the group's partner, else the owning user, else the account", async () => {
    const { db, schema } = await databaseBefore('2026_11_29_0001_scan_owners');
    const [partner, group, user] = [newId(), newId(), newId()];
    await sql`insert into partners (id, name) values (${partner}::uuid, 'P')`.execute(db.kysely);
    await sql`insert into groups (id, partner_id, name) values (${group}::uuid, ${partner}::uuid, 'G')`.execute(db.kysely);
    await sql`insert into users (id, name, email, password_hash) values (${user}::uuid, 'U', 'u@example.test', 'x')`.execute(db.kysely);
    const [grouped, owned, orphan] = [newId(), newId(), newId()];
    for (const id of [grouped, owned, orphan]) await insertAccount(db, id);
    await sql`update accounts set group_id = ${group}::uuid, owner_id = ${user}::uuid where id = ${grouped}::uuid`.execute(db.kysely);
    await sql`update accounts set owner_id = ${user}::uuid where id = ${owned}::uuid`.execute(db.kysely);
    const scans = [newId(), newId(), newId()];
    for (const [i, accountId] of [grouped, owned, orphan].entries()) {
      await sql`insert into scans (id, account_id, status, starting_url, max_pages) values (${scans[i]}::uuid, ${accountId}::uuid, 'completed', 'https://site.example.com/', 5)`.execute(db.kysely);
    }

    expect(await migrate(db, schema)).toContain('2026_11_29_0001_scan_owners');
    const rows = await db.kysely.selectFrom('scans').select(['id', 'owner_id']).execute();
    expect(Object.fromEntries(rows.map((row) => [row.id, row.owner_id]))).toEqual({ [scans[0]]: partner, [scans[1]]: user, [scans[2]]: orphan });
  });
});

describe('2026_11_29_0101_chooser_sketches', { timeout: MIGRATION_TEST_MS }, () => {
  it('fills in the choosers\' sketches from the stored consents, each contained in its visitors\' sketch, and the days\' counts', async () => {
    const { db, schema } = await databaseBefore('2026_11_29_0101_chooser_sketches');
    const [site, quiet] = [newId(), newId()];
    for (const id of [site, quiet]) await insertAccount(db, id);
    const sketchOf = (sessions: string[]) => {
      const sketch = new HyperLogLog();
      for (const session of sessions) sketch.add(session);
      return sketch;
    };
    // 2026-03-02 is a Monday: ten visitors, five of whom chose, and one chooser the visit counter never saw.
    const visitors = Array.from({ length: 10 }, (_, i) => `v-${i}`);
    for (const [accountId, day] of [[site, '2026-03-02'], [quiet, '2026-03-02']]) {
      for (const [grain, start] of [['day', day], ['week', day], ['month', '2026-03-01']]) {
        await sql`insert into account_visitor_sketches (account_id, grain, start, registers)
          values (${accountId}::uuid, ${grain}, ${start}::date, ${Buffer.from(sketchOf(visitors).registers)})`.execute(db.kysely);
      }
      await sql`insert into account_daily_stats (account_id, day, pageviews, visitors) values (${accountId}::uuid, ${day}::date, 20, 10)`.execute(db.kysely);
    }
    const consents: [string, string][] = [
      ...visitors.slice(0, 5).map((s, i): [string, string] => [s, `2026-03-02T0${i}:00:00Z`]),
      ['c-x', '2026-03-02T23:59:59Z'],
      ['c-1', '2026-03-05T10:00:00Z'], ['c-1', '2026-03-05T11:00:00Z'], ['', '2026-03-05T12:00:00Z'],
    ];
    for (const [n, [session, at]] of consents.entries()) {
      await sql`insert into consents (id, account_id, session_id, accept_type, gpc, created_at, chain_seq)
        values (${newId()}::uuid, ${site}::uuid, ${session}, 'all', false, ${at}::timestamptz, ${n + 1})`.execute(db.kysely);
    }

    expect(await migrate(db, schema)).toContain('2026_11_29_0101_chooser_sketches');
    const rows = await sql<{ account_id: string; grain: string; start: string; registers: Uint8Array; chooser_registers: Uint8Array }>`
      select account_id, grain, to_char(start, 'YYYY-MM-DD') as start, registers, chooser_registers from account_visitor_sketches`.execute(db.kysely);
    const hex = (sketch: HyperLogLog) => Buffer.from(sketch.registers).toString('hex');
    const got = (accountId: string, grain: string, start: string) => {
      const row = rows.rows.find((r) => r.account_id === accountId && r.grain === grain && r.start === start)!;
      return { visitors: Buffer.from(row.registers).toString('hex'), choosers: Buffer.from(row.chooser_registers).toString('hex') };
    };
    const monday = [...visitors.slice(0, 5), 'c-x'];
    const thursday = ['c-1'];
    expect(got(site, 'day', '2026-03-02')).toEqual({ visitors: hex(sketchOf([...visitors, 'c-x'])), choosers: hex(sketchOf(monday)) });
    expect(got(site, 'day', '2026-03-05')).toEqual({ visitors: hex(sketchOf(thursday)), choosers: hex(sketchOf(thursday)) });
    expect(got(site, 'week', '2026-03-02')).toEqual({ visitors: hex(sketchOf([...visitors, 'c-x', 'c-1'])), choosers: hex(sketchOf([...monday, ...thursday])) });
    expect(got(site, 'month', '2026-03-01')).toEqual(got(site, 'week', '2026-03-02'));
    // An account without consents keeps its visitors, and no chooser.
    expect(got(quiet, 'day', '2026-03-02')).toEqual({ visitors: hex(sketchOf(visitors)), choosers: hex(new HyperLogLog()) });
    const days = await sql<{ account_id: string; day: string; pageviews: number; visitors: number; choosers: number }>`
      select account_id, to_char(day, 'YYYY-MM-DD') as day, pageviews, visitors, choosers from account_daily_stats order by day`.execute(db.kysely);
    expect(days.rows.filter((r) => r.account_id === site)).toEqual([
      { account_id: site, day: '2026-03-02', pageviews: 20, visitors: 11, choosers: 6 },
      { account_id: site, day: '2026-03-05', pageviews: 0, visitors: 1, choosers: 1 },
    ]);
    expect(days.rows.filter((r) => r.account_id === quiet)).toEqual([{ account_id: quiet, day: '2026-03-02', pageviews: 20, visitors: 10, choosers: 0 }]);
  }, 120_000);
});
describe('2026_11_29_0510_content_translations', { timeout: MIGRATION_TEST_MS }, () => {
  it('gives existing categories, services and storage items no texts in other languages, and goes down and up again', async () => {
    const { db, schema } = await databaseBefore('2026_11_29_0510_content_translations');
    const [account, category, service, item] = [newId(), newId(), newId(), newId()];
    await insertAccount(db, account);
    await sql`insert into categories (id, account_id, name, slug, default_language) values (${category}::uuid, ${account}::uuid, 'Analytics', 'analytics', 'en')`.execute(db.kysely);
    await sql`insert into services (id, account_id, name, slug) values (${service}::uuid, ${account}::uuid, 'Matomo', 'matomo')`.execute(db.kysely);
    await sql`insert into storage_items (id, account_id, name) values (${item}::uuid, ${account}::uuid, '_pk_id')`.execute(db.kysely);
    const translations = async () => Promise.all((['categories', 'services', 'storage_items'] as const).map(async (table) =>
      (await db.kysely.selectFrom(table).select('translations').executeTakeFirstOrThrow()).translations));

    expect(await migrate(db, schema)).toContain('2026_11_29_0510_content_translations');
    expect(await translations()).toEqual([{}, {}, {}]);
    await db.kysely.updateTable('categories').set({ translations: JSON.stringify({ de: { name: 'Statistik' } }) }).execute();
    expect((await translations())[0]).toEqual({ de: { name: 'Statistik' } });

    await contentTranslations.down(db.kysely as Kysely<unknown>);
    const columns = await sql<{ table_name: string }>`select table_name from information_schema.columns
      where column_name = 'translations' and table_name in ('categories', 'services', 'storage_items') and table_schema = current_schema()`.execute(db.kysely);
    expect(columns.rows).toEqual([]);
    await contentTranslations.up(db.kysely as Kysely<unknown>);
    expect(await translations()).toEqual([{}, {}, {}]);
  });
});

describe('2026_11_29_0102_demo_accounts', { timeout: MIGRATION_TEST_MS }, () => {
  it('marks the demo command\'s earlier accounts as demos, and no other', async () => {
    const { db, schema } = await databaseBefore('2026_11_29_0102_demo_accounts');
    const partner = newId();
    await sql`insert into partners (id, name) values (${partner}::uuid, 'Demo Agency abc123')`.execute(db.kysely);
    const [demoGroup, realGroup] = [newId(), newId()];
    await sql`insert into groups (id, partner_id, name, external_id) values (${demoGroup}::uuid, ${partner}::uuid, 'Demo customers', 'demo-abc123'),
      (${realGroup}::uuid, ${partner}::uuid, 'Customers', 'crm-7')`.execute(db.kysely);
    const [demo, namesake, plain] = [newId(), newId(), newId()];
    for (const [id, name, group] of [[demo, 'Demo Shop', demoGroup], [namesake, 'Demo Shop', realGroup], [plain, 'Bakery', demoGroup]]) {
      await sql`insert into accounts (id, name, domain, allowed_domains, group_id) values (${id}::uuid, ${name}, 'shop.example.com', '{}', ${group}::uuid)`.execute(db.kysely);
    }
    expect(await migrate(db, schema)).toContain('2026_11_29_0102_demo_accounts');
    const rows = await sql<{ id: string; demo: boolean }>`select id, demo from accounts`.execute(db.kysely);
    expect(Object.fromEntries(rows.rows.map((r) => [r.id, r.demo]))).toEqual({ [demo]: true, [namesake]: false, [plain]: false });
  }, 120_000);
});

describe('2026_12_06_1001_consent_regions', { timeout: MIGRATION_TEST_MS }, () => {
  it('keeps every stored link valid, counts the stored days as of no country and no mode, and the writer goes on the same chain', async () => {
    const { db, schema } = await databaseBefore('2026_12_06_1001_consent_regions');
    const accountId = newId();
    await insertAccount(db, accountId);
    const types = ['all', 'necessary', 'all', 'custom'] as const;
    const written: Hashable[] = types.map((accept_type, n) => ({
      id: newId(), account_id: accountId, session_id: `s-${n}`, user_id: null,
      user_preferences: { accept_type, accepted_categories: [], rejected_categories: [], accepted_services: {}, rejected_services: {} },
      url: null, user_agent: null, ip_address: null, gpc: n === 1, created_at: new Date(Date.UTC(2026, 10, 1 + (n >> 1), n)),
    }));
    const links = chain({ seq: 0, hash: GENESIS }, written);
    for (const [n, c] of written.entries()) {
      await sql`insert into consents (id, account_id, session_id, accept_type, gpc, created_at, chain_seq, hash, personal_hash, personal_salt)
        values (${c.id}::uuid, ${accountId}::uuid, ${c.session_id}, ${c.user_preferences.accept_type}, ${c.gpc}, ${c.created_at.toISOString()}::timestamptz,
          ${links[n].seq}, decode(${links[n].hash}, 'hex'), decode(${links[n].personal_hash}, 'hex'), decode(${links[n].personal_salt}, 'hex'))`.execute(db.kysely);
    }
    await sql`insert into consent_chain_heads (account_id, seq, hash) values (${accountId}::uuid, 4, ${links[3].hash})`.execute(db.kysely);
    await sql`insert into consent_daily_stats (account_id, day, consents, accept_all, accept_custom, accept_necessary, gpc) values
      (${accountId}::uuid, '2026-11-01', 2, 1, 0, 1, 1), (${accountId}::uuid, '2026-11-02', 2, 1, 1, 0, 0)`.execute(db.kysely);

    expect(await migrate(db, schema)).toContain('2026_12_06_1001_consent_regions');
    const rows = (await db.kysely.selectFrom('consent_records').selectAll().orderBy('chain_seq').execute()).map(fromStored);
    expect(rows.map((r) => [r.country, r.region, r.mode, r.gpp_string])).toEqual(written.map(() => [null, null, null, null]));
    expect(await verifyChain(db.kysely, accountId)).toEqual({ valid: true, checked: 4, first_bad_id: null });
    const rollup = () => sql<Record<string, unknown>>`select to_char(day, 'YYYY-MM-DD') as day, country, mode, consents, accept_all, accept_custom,
      accept_necessary, opt_outs, gpc from consent_daily_country_modes order by day, country, mode`.execute(db.kysely).then((r) => r.rows);
    expect(await rollup()).toEqual([
      { day: '2026-11-01', country: '', mode: '', consents: 2, accept_all: 1, accept_custom: 0, accept_necessary: 1, opt_outs: 0, gpc: 1 },
      { day: '2026-11-02', country: '', mode: '', consents: 2, accept_all: 1, accept_custom: 1, accept_necessary: 0, opt_outs: 0, gpc: 0 },
    ]);

    // New consents, with and without a place, chain on the old ones and are counted by country and mode.
    const writer = new ConsentWriter(db, { maxBatch: 10, maxQueue: 10, concurrency: 1 });
    const at = new Date(Date.UTC(2026, 10, 2, 12));
    const placed = newId();
    await writer.write({ ...written[0], id: placed, created_at: at, country: 'US', region: 'US-CA', mode: 'opt-out', gpp_string: 'DBABLA~BVQqAAAAAgA.QA' });
    await writer.write({ ...written[1], id: newId(), created_at: at });
    await writer.close();
    expect(await verifyChain(db.kysely, accountId)).toEqual({ valid: true, checked: 6, first_bad_id: null });
    expect((await rollup()).filter((r) => r.day === '2026-11-02')).toEqual([
      { day: '2026-11-02', country: '', mode: '', consents: 3, accept_all: 1, accept_custom: 1, accept_necessary: 1, opt_outs: 0, gpc: 1 },
      { day: '2026-11-02', country: 'US', mode: 'opt-out', consents: 1, accept_all: 1, accept_custom: 0, accept_necessary: 0, opt_outs: 0, gpc: 0 },
    ]);

    // Down and up again: the columns go, and come back empty: the consent that had a place no longer verifies.
    // The later migrations that rebuild the view consent_records go down first and up after, in order.
    const later = [consentTcfStrings, noticeSnapshots];
    for (const migration of [...later].reverse()) await migration.down(db.kysely as Kysely<unknown>);
    await consentRegions.down(db.kysely as Kysely<unknown>);
    const columns = await sql<{ column_name: string }>`select column_name from information_schema.columns
      where table_name in ('consents', 'consent_records') and column_name in ('country', 'region', 'mode', 'gpp_string') and table_schema = current_schema()`.execute(db.kysely);
    expect(columns.rows).toEqual([]);
    await consentRegions.up(db.kysely as Kysely<unknown>);
    for (const migration of later) await migration.up(db.kysely as Kysely<unknown>);
    expect(await verifyChain(db.kysely, accountId)).toEqual({ valid: false, checked: 4, first_bad_id: placed });
  });
});

describe('2026_12_06_1202_category_sale_or_sharing', { timeout: MIGRATION_TEST_MS }, () => {
  it('marks the existing categories of the slug marketing, in every account, and no other', async () => {
    const { db, schema } = await databaseBefore('2026_12_06_1202_category_sale_or_sharing');
    const [first, second] = [newId(), newId()];
    for (const id of [first, second]) await insertAccount(db, id);
    const rows: [string, string, string, string][] = [
      [newId(), first, 'Marketing', 'marketing'],
      [newId(), first, 'Analytics', 'analytics'],
      [newId(), first, 'Marketing emails', 'marketing-emails'],
      [newId(), second, 'Werbung', 'marketing'],
      [newId(), second, 'Necessary', 'necessary'],
    ];
    for (const [id, account, name, slug] of rows) {
      await sql`insert into categories (id, account_id, name, slug, default_language) values (${id}::uuid, ${account}::uuid, ${name}, ${slug}, 'en')`.execute(db.kysely);
    }
    expect(await migrate(db, schema)).toContain('2026_12_06_1202_category_sale_or_sharing');
    const marked = await sql<{ id: string; sale_or_sharing: boolean }>`select id, sale_or_sharing from categories`.execute(db.kysely);
    expect(Object.fromEntries(marked.rows.map((r) => [r.id, r.sale_or_sharing]))).toEqual(Object.fromEntries(rows.map(([id, , , slug]) => [id, slug === 'marketing'])));
    // A category added later by SQL alone is not one, whatever its slug: the service decides on insert.
    await sql`insert into categories (id, account_id, name, slug, default_language) values (${newId()}::uuid, ${first}::uuid, 'Ads', 'ads', 'en')`.execute(db.kysely);
    expect((await sql<{ n: number }>`select count(*)::int as n from categories where sale_or_sharing`.execute(db.kysely)).rows[0].n).toBe(2);
  });
});
