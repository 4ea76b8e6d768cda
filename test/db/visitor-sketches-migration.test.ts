/**
 * The migration to day, week and month visitor sketches keeps every daily sketch and builds each
 * week's and month's as the union of its days', on a database that holds daily sketches already.
 */
import { randomBytes } from 'node:crypto';
import { sql, Migrator } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createDb, migrate } from '../../src/db/database.ts';
import { newId } from '../../src/db/ids.ts';
import { migrationProvider } from '../../src/db/migrations/index.ts';
import { HyperLogLog } from '../../src/lib/hyperloglog.ts';
import { ENGINE } from '../helpers/app.ts';

const MIGRATION = '2026_11_25_2200_visitor_period_sketches';
const schema = ENGINE === 'postgres' ? `test_${randomBytes(6).toString('hex')}` : undefined;
const db = createDb(loadConfig({ DATABASE_URL: ENGINE === 'postgres' ? process.env.DATABASE_URL : 'memory://', DATABASE_SCHEMA: schema }));
afterAll(async () => {
  if (schema) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db.kysely);
  await db.close();
});

describe(MIGRATION, () => {
  it('moves the daily sketches and builds the weekly and monthly ones from them', async () => {
    if (schema) await sql`create schema ${sql.id(schema)}`.execute(db.kysely);
    const before = new Migrator({
      db: db.kysely,
      migrationTableSchema: schema,
      allowUnorderedMigrations: true,
      provider: { getMigrations: async () => Object.fromEntries(Object.entries(await migrationProvider.getMigrations()).filter(([name]) => name !== MIGRATION)) },
    });
    const { error } = await before.migrateToLatest();
    expect(error).toBeUndefined();

    const accounts = [newId(), newId()];
    for (const id of accounts) {
      await sql`insert into accounts (id, name, domain, allowed_domains) values (${id}::uuid, 'Site', 'site.example.com', '{}')`.execute(db.kysely);
    }
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

    expect(await migrate(db, schema)).toEqual([MIGRATION]);
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
