import { sql, type Kysely } from 'kysely';

/**
 * Visitor sketches per day, ISO week and month in one table, so that the unique visitors of a year
 * merge about twelve monthly sketches instead of 365 daily ones. The daily sketches move over as
 * they are; the weekly and monthly ones are built from them (a HyperLogLog union is the
 * register-wise maximum), one account at a time so that memory holds one account's days.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table account_visitor_sketches (
      account_id uuid not null references accounts (id) on delete cascade,
      grain text not null check (grain in ('day', 'week', 'month')),
      start date not null,
      registers bytea not null,
      primary key (account_id, grain, start)
    );
    insert into account_visitor_sketches (account_id, grain, start, registers)
      select account_id, 'day', day, registers from account_daily_sketches;
  `.execute(db);
  const accounts = await sql<{ account_id: string }>`select distinct account_id from account_daily_sketches`.execute(db);
  for (const { account_id: accountId } of accounts.rows) {
    const days = await sql<{ week: string; month: string; registers: Uint8Array }>`
      select to_char(date_trunc('week', day), 'YYYY-MM-DD') as week, to_char(date_trunc('month', day), 'YYYY-MM-DD') as month, registers
      from account_daily_sketches where account_id = ${accountId}::uuid`.execute(db);
    const periods = new Map<string, Uint8Array>();
    for (const day of days.rows) {
      for (const key of [`week ${day.week}`, `month ${day.month}`]) {
        const merged = periods.get(key);
        if (!merged) periods.set(key, Uint8Array.from(day.registers));
        else for (let i = 0; i < merged.length; i++) if (day.registers[i] > merged[i]) merged[i] = day.registers[i];
      }
    }
    const keys = [...periods.keys()];
    await sql`insert into account_visitor_sketches (account_id, grain, start, registers)
      select ${accountId}::uuid, grain, start, registers
      from unnest(${keys.map((k) => k.split(' ')[0])}::text[], ${keys.map((k) => k.split(' ')[1])}::date[], ${keys.map((k) => Buffer.from(periods.get(k)!))}::bytea[])
        as u(grain, start, registers)`.execute(db);
  }
  await sql`drop table account_daily_sketches`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table account_daily_sketches (
      account_id uuid not null references accounts (id) on delete cascade,
      day date not null,
      registers bytea not null,
      primary key (account_id, day)
    );
    insert into account_daily_sketches (account_id, day, registers)
      select account_id, start, registers from account_visitor_sketches where grain = 'day';
    drop table account_visitor_sketches;
  `.execute(db);
}
