import { sql } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import { HyperLogLog } from '../../lib/hyperloglog.ts';
import { periodStart, type Period } from './periods.ts';
import { INTERVALS, type Interval } from './stats.schema.ts';

/** The accounts among `ids` that still exist, locked against deletion until the transaction ends. */
export async function existingAccounts(db: Executor, ids: string[]): Promise<Set<string>> {
  const rows = await db.selectFrom('accounts').select('id').where('id', 'in', ids).orderBy('id').forKeyShare().execute();
  return new Set(rows.map((row) => row.id));
}

/**
 * Adds visitors to the stored sketches of their day, and of that day's ISO week and month. Each
 * entry is merged into the three rows; the rows are created first and then read locked, in one
 * order, so that two instances flushing at once merge one after the other. Answers each day's
 * distinct visitors as its merged sketch counts them.
 */
export async function mergeSketches(
  db: Executor, entries: { accountId: string; day: string; sketch: HyperLogLog }[],
): Promise<{ accountId: string; day: string; visitors: number }[]> {
  const additions = new Map<string, { accountId: string; grain: Interval; start: string; sketch: HyperLogLog }>();
  for (const { accountId, day, sketch } of entries) {
    for (const grain of INTERVALS) {
      const start = periodStart(day, grain);
      const key = `${accountId} ${grain} ${start}`;
      const added = additions.get(key);
      if (added) added.sketch.merge(sketch);
      else additions.set(key, { accountId, grain, start, sketch: new HyperLogLog(sketch.registers) });
    }
  }
  if (additions.size === 0) return [];
  const ordered = [...additions.keys()].sort().map((key) => additions.get(key)!);
  const keys = sql`unnest(${ordered.map((a) => a.accountId)}::uuid[], ${ordered.map((a) => a.grain)}::text[], ${ordered.map((a) => a.start)}::date[])`;
  await sql`insert into account_visitor_sketches (account_id, grain, start, registers)
    select account_id, grain, start, ${new HyperLogLog().registers} from ${keys} as k(account_id, grain, start)
    on conflict (account_id, grain, start) do nothing`.execute(db);
  const stored = await sql<{ account_id: string; grain: Interval; start: string; registers: Uint8Array }>`
    select s.account_id, s.grain, to_char(s.start, 'YYYY-MM-DD') as start, s.registers
    from account_visitor_sketches s join ${keys} as k(account_id, grain, start) using (account_id, grain, start)
    order by s.account_id, s.grain, s.start for update of s`.execute(db);
  const merged = stored.rows.map((row) => new HyperLogLog(row.registers).merge(additions.get(`${row.account_id} ${row.grain} ${row.start}`)!.sketch));
  await sql`update account_visitor_sketches s set registers = u.registers
    from unnest(${stored.rows.map((r) => r.account_id)}::uuid[], ${stored.rows.map((r) => r.grain)}::text[], ${stored.rows.map((r) => r.start)}::date[],
      ${merged.map((m) => Buffer.from(m.registers))}::bytea[]) as u(account_id, grain, start, registers)
    where s.account_id = u.account_id and s.grain = u.grain and s.start = u.start`.execute(db);
  return stored.rows.flatMap((row, i) => (row.grain === 'day' ? [{ accountId: row.account_id, day: row.start, visitors: merged[i].count() }] : []));
}

const dayText = sql<string>`to_char(day, 'YYYY-MM-DD')`;

/** Consents per account and day, by accept type, with GPC. */
export async function consentDays(db: Executor, accountIds: string[], from: string, to: string) {
  return db.selectFrom('consent_daily_stats')
    .select(['account_id', dayText.as('day'), 'consents', 'accept_all', 'accept_custom', 'accept_necessary', 'gpc'])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .execute();
}

/** Accepted and rejected choices per category and day, summed over the accounts. */
export async function categoryDays(db: Executor, accountIds: string[], from: string, to: string) {
  return db.selectFrom('consent_daily_categories')
    .select(['category_id', dayText.as('day')])
    .select((eb) => [eb.fn.sum<number>('accepted').as('accepted'), eb.fn.sum<number>('rejected').as('rejected')])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .groupBy(['category_id', 'day'])
    .execute();
}

/** Pageviews and (exact, daily) visitors per account and day. */
export async function visitDays(db: Executor, accountIds: string[], from: string, to: string) {
  return db.selectFrom('account_daily_stats').select(['account_id', dayText.as('day'), 'pageviews', 'visitors'])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .execute();
}

/** The stored visitor sketches of the given periods, per account. */
export async function sketchesOf(db: Executor, accountIds: string[], periods: Period[]) {
  const of = (grain: Interval) => periods.filter((p) => p.grain === grain).map((p) => p.start);
  const result = await sql<{ account_id: string; grain: Interval; start: string; registers: Uint8Array }>`
    select account_id, grain, to_char(start, 'YYYY-MM-DD') as start, registers from account_visitor_sketches
    where account_id = any(${accountIds}::uuid[])
      and ((grain = 'day' and start = any(${of('day')}::date[])) or (grain = 'week' and start = any(${of('week')}::date[]))
        or (grain = 'month' and start = any(${of('month')}::date[])))`.execute(db);
  return result.rows;
}

/** The slugs and names of categories that still exist. */
export async function categoryNames(db: Executor, accountIds: string[]) {
  return db.selectFrom('categories').select(['id', 'slug', 'name']).where('account_id', 'in', accountIds).execute();
}

/** The accounts of a partner's group (none when the group is another partner's). */
export async function groupAccounts(db: Executor, partnerId: string, groupId: string) {
  return db.selectFrom('accounts').innerJoin('groups', 'groups.id', 'accounts.group_id')
    .select(['accounts.id', 'accounts.name']).where('groups.partner_id', '=', partnerId).where('groups.id', '=', groupId)
    .orderBy('accounts.created_at').orderBy('accounts.id').execute();
}

export async function groupExists(db: Executor, partnerId: string, groupId: string): Promise<boolean> {
  return !!(await db.selectFrom('groups').select('id').where('partner_id', '=', partnerId).where('id', '=', groupId).executeTakeFirst());
}
