import { sql, type Kysely } from 'kysely';
import { HyperLogLog } from '../../lib/hyperloglog.ts';

/** Consents read at a time while the sketches are filled in. */
const PAGE = 20_000;

/**
 * The consent rate's numerator: beside each visitor sketch (day, ISO week, month), a sketch of the
 * visitors who chose (a consent recorded for their session), and beside each day's visitors the
 * day's choosers. The visitor sketch always holds every chooser (see `mergeSketches`), so the
 * choosers never count more than the visitors.
 *
 * The sketches are filled in from the stored consents, one account at a time and a page of consents
 * at a time (an erased consent has no session left and is not counted); each visitor sketch becomes
 * its union with the choosers', and the days' counts are written from the sketches.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table account_visitor_sketches add column chooser_registers bytea not null default decode(repeat('00', ${sql.lit(new HyperLogLog().registers.length)}), 'hex');
    alter table account_daily_stats add column choosers integer not null default 0;
  `.execute(db);
  const accounts = await sql<{ account_id: string }>`select distinct account_id from consents`.execute(db);
  for (const { account_id: accountId } of accounts.rows) {
    const choosers = new Map<string, HyperLogLog>();
    let after: { created_at: string; id: string } | undefined;
    for (;;) {
      const page = await sql<{ session_id: string; day: string; week: string; month: string; created_at: string; id: string }>`
        select session_id, to_char(d, 'YYYY-MM-DD') as day, to_char(date_trunc('week', d), 'YYYY-MM-DD') as week,
          to_char(date_trunc('month', d), 'YYYY-MM-DD') as month, created_at::text as created_at, id
        from (select session_id, (created_at at time zone 'UTC')::date::timestamp as d, created_at, id from consents
              where account_id = ${accountId}::uuid
                ${after ? sql`and (created_at, id) > (${after.created_at}::timestamptz, ${after.id}::uuid)` : sql``}
              order by created_at, id limit ${PAGE}) c`.execute(db);
      for (const row of page.rows) {
        if (row.session_id === '') continue;
        for (const key of [`day ${row.day}`, `week ${row.week}`, `month ${row.month}`]) {
          let sketch = choosers.get(key);
          if (!sketch) choosers.set(key, (sketch = new HyperLogLog()));
          sketch.add(row.session_id);
        }
      }
      if (page.rows.length < PAGE) break;
      const last = page.rows.at(-1)!;
      after = { created_at: last.created_at, id: last.id };
    }
    if (choosers.size === 0) continue;
    const keys = [...choosers.keys()];
    const stored = await sql<{ grain: string; start: string; registers: Uint8Array }>`
      select grain, to_char(start, 'YYYY-MM-DD') as start, registers from account_visitor_sketches where account_id = ${accountId}::uuid`.execute(db);
    const visitors = new Map(stored.rows.map((row) => [`${row.grain} ${row.start}`, row.registers]));
    const merged = keys.map((key) => new HyperLogLog(visitors.get(key)).merge(choosers.get(key)!));
    await sql`insert into account_visitor_sketches as s (account_id, grain, start, registers, chooser_registers)
      select ${accountId}::uuid, grain, start, registers, chooser_registers
      from unnest(${keys.map((k) => k.split(' ')[0])}::text[], ${keys.map((k) => k.split(' ')[1])}::date[],
        ${merged.map((m) => Buffer.from(m.registers))}::bytea[], ${keys.map((k) => Buffer.from(choosers.get(k)!.registers))}::bytea[])
        as u(grain, start, registers, chooser_registers)
      on conflict (account_id, grain, start) do update set registers = excluded.registers, chooser_registers = excluded.chooser_registers`.execute(db);
    const days = keys.flatMap((key, i) => (key.startsWith('day ') ? [{ day: key.slice(4), visitors: merged[i].count(), choosers: choosers.get(key)!.count() }] : []));
    await sql`insert into account_daily_stats as d (account_id, day, pageviews, visitors, choosers)
      select ${accountId}::uuid, day, 0, visitors, choosers
      from unnest(${days.map((d) => d.day)}::date[], ${days.map((d) => d.visitors)}::int[], ${days.map((d) => d.choosers)}::int[]) as u(day, visitors, choosers)
      on conflict (account_id, day) do update set visitors = excluded.visitors, choosers = excluded.choosers`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table account_visitor_sketches drop column chooser_registers;
    alter table account_daily_stats drop column choosers;
  `.execute(db);
}
