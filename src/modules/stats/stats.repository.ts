import { sql } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import { HyperLogLog } from '../../lib/hyperloglog.ts';
import { periodStart, type Period } from './periods.ts';
import { INTERVALS, type Breakdown, type Interval } from './stats.schema.ts';
import { LIVE_VISITORS } from '../accounts/accounts.schema.ts';

/** The accounts among `ids` that still exist, locked against deletion until the transaction ends. */
export async function existingAccounts(db: Executor, ids: string[]): Promise<Set<string>> {
  const rows = await db.selectFrom('accounts').select('id').where('id', 'in', ids).orderBy('id').forKeyShare().execute();
  return new Set(rows.map((row) => row.id));
}

/** Visitors of one account on one day, and those of them who chose. */
export interface SketchEntry {
  accountId: string;
  day: string;
  sketch: HyperLogLog;
  /** The day's choosers (a consent recorded for their session); none when left out. */
  choosers?: HyperLogLog;
}

/**
 * Adds visitors to the stored sketches of their day, and of that day's ISO week and month, with
 * the choosers among them. Each entry is merged into the three rows; the rows are created first and
 * then read locked, in one order, so that two instances flushing at once merge one after the other.
 * The visitor sketch is written as its union with the choosers' (a visitor who chose was shown the
 * banner), so that the choosers' sketch is always contained in it and never counts more (the
 * count is monotone). Answers each day's distinct visitors and choosers as the merged sketches count them.
 */
export async function mergeSketches(
  db: Executor, entries: SketchEntry[],
): Promise<{ accountId: string; day: string; visitors: number; choosers: number }[]> {
  const additions = new Map<string, { accountId: string; grain: Interval; start: string; sketch: HyperLogLog; choosers: HyperLogLog }>();
  for (const { accountId, day, sketch, choosers } of entries) {
    for (const grain of INTERVALS) {
      const start = periodStart(day, grain);
      const key = `${accountId} ${grain} ${start}`;
      const added = additions.get(key);
      if (added) {
        added.sketch.merge(sketch);
        if (choosers) added.choosers.merge(choosers);
      } else {
        additions.set(key, { accountId, grain, start, sketch: new HyperLogLog(sketch.registers), choosers: new HyperLogLog(choosers?.registers) });
      }
    }
  }
  if (additions.size === 0) return [];
  const ordered = [...additions.keys()].sort().map((key) => additions.get(key)!);
  const keys = sql`unnest(${ordered.map((a) => a.accountId)}::uuid[], ${ordered.map((a) => a.grain)}::text[], ${ordered.map((a) => a.start)}::date[])`;
  await sql`insert into account_visitor_sketches (account_id, grain, start, registers)
    select account_id, grain, start, ${new HyperLogLog().registers} from ${keys} as k(account_id, grain, start)
    on conflict (account_id, grain, start) do nothing`.execute(db);
  const stored = await sql<{ account_id: string; grain: Interval; start: string; registers: Uint8Array; chooser_registers: Uint8Array }>`
    select s.account_id, s.grain, to_char(s.start, 'YYYY-MM-DD') as start, s.registers, s.chooser_registers
    from account_visitor_sketches s join ${keys} as k(account_id, grain, start) using (account_id, grain, start)
    order by s.account_id, s.grain, s.start for update of s`.execute(db);
  const merged = stored.rows.map((row) => {
    const added = additions.get(`${row.account_id} ${row.grain} ${row.start}`)!;
    const choosers = new HyperLogLog(row.chooser_registers).merge(added.choosers);
    return { visitors: new HyperLogLog(row.registers).merge(added.sketch).merge(choosers), choosers };
  });
  await sql`update account_visitor_sketches s set registers = u.registers, chooser_registers = u.chooser_registers
    from unnest(${stored.rows.map((r) => r.account_id)}::uuid[], ${stored.rows.map((r) => r.grain)}::text[], ${stored.rows.map((r) => r.start)}::date[],
      ${merged.map((m) => Buffer.from(m.visitors.registers))}::bytea[], ${merged.map((m) => Buffer.from(m.choosers.registers))}::bytea[])
      as u(account_id, grain, start, registers, chooser_registers)
    where s.account_id = u.account_id and s.grain = u.grain and s.start = u.start`.execute(db);
  return stored.rows.flatMap((row, i) => (row.grain === 'day'
    ? [{ accountId: row.account_id, day: row.start, visitors: merged[i].visitors.count(), choosers: merged[i].choosers.count() }]
    : []));
}

const dayText = sql<string>`to_char(day, 'YYYY-MM-DD')`;

/** Consents per account and day, by accept type, with GPC. */
export async function consentDays(db: Executor, accountIds: string[], from: string, to: string) {
  return db.selectFrom('consent_daily_stats')
    .select(['account_id', dayText.as('day'), 'consents', 'accept_all', 'accept_custom', 'accept_necessary', 'gpc'])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .execute();
}

/**
 * Consents per country or per mode between two days, summed over the accounts and the days: a few
 * rows per account and day from the writer's rollup, whatever the number of consents. `''` is an
 * unknown country or an unrecorded mode.
 */
export async function consentsBy(db: Executor, accountIds: string[], from: string, to: string, by: Breakdown) {
  const sum = (column: 'consents' | 'accept_all' | 'accept_custom' | 'accept_necessary' | 'opt_outs' | 'gpc') =>
    sql<number>`sum(${sql.ref(column)})::int`.as(column);
  return db.selectFrom('consent_daily_country_modes')
    .select([sql<string>`${sql.ref(by)}`.as('value'), sum('consents'), sum('accept_all'), sum('accept_custom'), sum('accept_necessary'), sum('opt_outs'), sum('gpc')])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .groupBy(by)
    .execute();
}

/** TC strings' purpose consents and standing legitimate interests between two days, per purpose (0: the strings), summed. */
export async function tcfPurposeCounts(db: Executor, accountIds: string[], from: string, to: string) {
  return db.selectFrom('consent_daily_tcf_purposes')
    .select(['purpose', sql<number>`sum(consents)::int`.as('consents'), sql<number>`sum(legitimate_interests)::int`.as('legitimate_interests')])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .groupBy('purpose')
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

/** Pageviews, visitors and choosers per account and day (the day's sketches counted when they were last written). */
export async function visitDays(db: Executor, accountIds: string[], from: string, to: string) {
  return db.selectFrom('account_daily_stats').select(['account_id', dayText.as('day'), 'pageviews', 'visitors', 'choosers'])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .execute();
}

/** The stored visitor sketches of the given periods, per account. */
export async function sketchesOf(db: Executor, accountIds: string[], periods: Period[]) {
  const of = (grain: Interval) => periods.filter((p) => p.grain === grain).map((p) => p.start);
  const result = await sql<{ account_id: string; grain: Interval; start: string; registers: Uint8Array; chooser_registers: Uint8Array }>`
    select account_id, grain, to_char(start, 'YYYY-MM-DD') as start, registers, chooser_registers from account_visitor_sketches
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

/** One account's visits on one day: every pageview, and the distinct sessions among them. */
export interface VisitTally {
  accountId: string;
  pageviews: number;
  sessions: string[];
}

/**
 * The pageviews of each account on `day` (UTC), and its most recently seen sessions: at most
 * LIVE_VISITORS per account are kept, which is all the onboarding status asks of them ("were 10
 * distinct sessions seen in 30 days?" is "was the tenth most recent seen in 30 days?"). The day's
 * visitor count comes from its sketch (stats). Each account's rows are worked on under an advisory
 * lock taken in account order, so that two instances flushing one account never deadlock.
 */
export async function recordVisits(db: Executor, day: string, tallies: VisitTally[]): Promise<void> {
  const ordered = [...tallies].sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
  const ids = ordered.map((t) => t.accountId);
  await sql`select pg_advisory_xact_lock(hashtext('consentry:visitors:' || id)) from unnest(${ids}::text[]) with ordinality as u(id, n) order by n`.execute(db);
  // Any LIVE_VISITORS of one flush's sessions will do: they were all seen on the same day.
  const sessions = ordered.flatMap((t) => [...new Set(t.sessions)].sort().slice(0, LIVE_VISITORS).map((sessionId) => [t.accountId, sessionId]));
  // A visit is dated by the day it was counted on (now, when it is today): a flush of an earlier
  // day's counts must not make its sessions look seen later.
  await sql`with seen as (
      insert into account_recent_visitors as v (account_id, session_id, last_seen_at)
      select account_id, session_id, least(now(), ((${day}::date + 1)::timestamp at time zone 'UTC') - interval '1 millisecond')
      from unnest(${sessions.map(([accountId]) => accountId)}::uuid[], ${sessions.map(([, sessionId]) => sessionId)}::text[]) as u(account_id, session_id)
      on conflict (account_id, session_id) do update set last_seen_at = greatest(v.last_seen_at, excluded.last_seen_at)
    )
    insert into account_daily_stats (account_id, day, pageviews, visitors)
    select account_id, ${day}::date, pageviews, 0 from unnest(${ids}::uuid[], ${ordered.map((t) => t.pageviews)}::int[]) as u(account_id, pageviews)
    on conflict (account_id, day) do update set pageviews = account_daily_stats.pageviews + excluded.pageviews`.execute(db);
  await sql`delete from account_recent_visitors r using (
      select account_id, session_id, row_number() over (partition by account_id order by last_seen_at desc, session_id) as recency
      from account_recent_visitors where account_id = any(${ids}::uuid[])
    ) ranked
    where ranked.recency > ${LIVE_VISITORS} and r.account_id = ranked.account_id and r.session_id = ranked.session_id`.execute(db);
}

/** The day's distinct visitors and choosers of each account, read from its merged sketches after a flush. */
export async function setDailyVisitors(db: Executor, day: string, counts: { accountId: string; visitors: number; choosers: number }[]): Promise<void> {
  if (counts.length === 0) return;
  await sql`update account_daily_stats d set visitors = u.visitors, choosers = u.choosers
    from unnest(${counts.map((c) => c.accountId)}::uuid[], ${counts.map((c) => c.visitors)}::int[], ${counts.map((c) => c.choosers)}::int[])
      as u(account_id, visitors, choosers)
    where d.account_id = u.account_id and d.day = ${day}::date`.execute(db);
}
