import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import { DAY_MS, HOUR_MS } from '../../lib/utc-period.ts';
import type { ConsentFilters } from './consents.schema.ts';

/* What a consent listing matches, and how many. */

/**
 * Consents of one session of one account, found through the session index
 * (`consents_session_prefix_idx`: the session id's first 8 characters, its hash and the account id),
 * the whole session id checked on the row.
 */
export function ofSession(accountId: string, sessionId: string): RawBuilder<boolean> {
  return sql<boolean>`left(session_id, 8) = left(${sessionId}, 8) and hashtext(session_id) = hashtext(${sessionId})
    and account_id = ${accountId} and session_id = ${sessionId}`;
}

/** The consents of an account the filters match, in the table (`consents`) or with their lists (`consent_records`). */
export function filtered(db: Executor, accountId: string, filters: ConsentFilters, from: 'consents' | 'consent_records' = 'consents') {
  let query = db.selectFrom(from as 'consents').where('account_id', '=', accountId);
  if (filters.session_id !== undefined) query = query.where(ofSession(accountId, filters.session_id));
  if (filters.user_id !== undefined) query = query.where('user_id', '=', filters.user_id);
  if (filters.created_after !== undefined) query = query.where('created_at', '>', new Date(filters.created_after));
  if (filters.created_before !== undefined) query = query.where('created_at', '<', new Date(filters.created_before));
  return query;
}

/**
 * The count as a scalar expression: unfiltered, the account's counter, kept exact by the writer;
 * by time alone, the rollups of the window's whole days plus its partial ends (`countWindow`); by
 * session, an index scan of that session's few consents; by user, an index-only scan of
 * `(account_id, user_id)`, whose equal keys share one entry (a user may have thousands).
 */
export function countOf(db: Executor, accountId: string, filters: ConsentFilters): RawBuilder<number> {
  const { session_id, user_id, created_after, created_before } = filters;
  if (session_id === undefined && user_id === undefined) {
    if (created_after === undefined && created_before === undefined) {
      return sql<number>`coalesce((select consents from account_consent_counts where account_id = ${accountId}), 0)`;
    }
    const window = countWindow(accountId, created_after === undefined ? undefined : new Date(created_after),
      created_before === undefined ? undefined : new Date(created_before));
    if (window) return window;
  }
  return sql<number>`(${filtered(db, accountId, filters).select((eb) => eb.fn.countAll<number>().as('count'))})`;
}

const floorTo = (at: number, unit: number) => Math.floor(at / unit) * unit;

/**
 * The count of a time window (both ends excluded) as one expression, so read in one snapshot: its
 * whole UTC days from `consent_daily_stats`, the whole hours of its partial days from
 * `consent_hourly_counts` (each what it still holds: `consents - removed`), and the partial hours at
 * its ends from the (account_id, created_at) index: at most two hours of consents are scanned,
 * whatever the window. Exact: the writer adds to a day and an hour in the statement that stores
 * their consents, retention to their `removed` in the transaction that removes them. Rows written
 * around the writer are in no rollup, so an account holding any is counted from the index.
 * Undefined when the window holds no whole hour.
 */
function countWindow(accountId: string, after: Date | undefined, before: Date | undefined): RawBuilder<number> | undefined {
  const hourAfter = after && floorTo(after.getTime(), HOUR_MS) + HOUR_MS;
  const hourBefore = before && floorTo(before.getTime(), HOUR_MS);
  if (hourAfter !== undefined && hourBefore !== undefined && hourAfter >= hourBefore) return undefined;
  const dayAfter = after && floorTo(after.getTime(), DAY_MS) + DAY_MS;
  const dayBefore = before && floorTo(before.getTime(), DAY_MS);
  const wholeDays = dayAfter === undefined || dayBefore === undefined || dayAfter < dayBefore;
  const time = (at: number) => sql`${new Date(at).toISOString()}::timestamptz`;
  const day = (at: number) => sql`${new Date(at).toISOString().slice(0, 10)}::date`;
  const hours = (from: number, to: number) => sql`(hour >= ${time(from)} and hour < ${time(to)})`;
  const hourRanges = wholeDays
    ? [...(hourAfter !== undefined ? [hours(hourAfter, dayAfter!)] : []), ...(hourBefore !== undefined ? [hours(dayBefore!, hourBefore)] : [])]
    : [hours(hourAfter!, hourBefore!)];
  const held = (table: string, where: RawBuilder<unknown>[]) =>
    sql`(select coalesce(sum(consents - removed), 0) from ${sql.table(table)} where account_id = ${accountId} and ${sql.join(where, sql` and `)})`;
  const count = (where: RawBuilder<unknown>) => sql`(select count(*) from consents where account_id = ${accountId} and ${where})`;
  const parts = [
    ...(wholeDays ? [held('consent_daily_stats', [sql`true`,
      ...(dayAfter !== undefined ? [sql`day >= ${day(dayAfter)}`] : []), ...(dayBefore !== undefined ? [sql`day < ${day(dayBefore)}`] : [])])] : []),
    ...(hourRanges.length > 0 ? [held('consent_hourly_counts', [sql`(${sql.join(hourRanges, sql` or `)})`])] : []),
    ...(after && hourAfter !== undefined ? [count(sql`created_at > ${time(after.getTime())} and created_at < ${time(hourAfter)}`)] : []),
    ...(before && hourBefore !== undefined ? [count(sql`created_at >= ${time(hourBefore)} and created_at < ${time(before.getTime())}`)] : []),
  ];
  const scanned = sql.join([sql`true`, ...(after ? [sql`created_at > ${time(after.getTime())}`] : []), ...(before ? [sql`created_at < ${time(before.getTime())}`] : [])], sql` and `);
  return sql<number>`(case
      when exists (select 1 from consents where account_id = ${accountId} and chain_seq < 0) then ${count(scanned)}
      else ${sql.join(parts, sql` + `)}
    end)`;
}

/**
 * The ids and times of an unfiltered page at `window.offset` (> 0), found through the daily and hourly
 * counts instead of by walking `offset` index entries. In listing order, the days' counts
 * (`consents - removed`, exact as for `countWindow`) are added up to the day that holds the
 * `offset`-th consent, then that day's hours to its hour, one primary-key probe a step; the page is
 * then read from that hour's far edge, skipping the consents of the hour before it, which walks at
 * most one hour of consents. At 10,000,000 consents `offset=10000` walked 10,000 entries in 1.5 ms
 * and walks about 750 now; `offset=500000` takes ~40 steps instead of half a million entries. (A
 * window function over the hours sorted them all whenever the planner guessed few rows for the
 * account, as a prepared statement's plan does: 5 ms.) An account holding rows written around the
 * writer (in no count) walks its offset as before: the edge is open and the whole offset is skipped.
 * The offset is a parameter, the limit a literal.
 */
export function skippedPage(accountId: string, window: { limit: number; offset: number }, order: 'asc' | 'desc'): RawBuilder<{ id: string; created_at: Date }> {
  const { offset, limit } = window;
  const desc = order === 'desc';
  const direction = sql.raw(order);
  const beyond = sql.raw(desc ? '<' : '>');
  /** The next day or hour in listing order, among those `where` allows. */
  const next = (table: 'consent_daily_stats' | 'consent_hourly_counts', unit: 'day' | 'hour', where: RawBuilder<unknown>) =>
    sql`(select ${sql.ref(unit)} as at, consents - removed as held from ${sql.table(table)}
      where account_id = ${accountId} ${where} order by ${sql.ref(unit)} ${direction} limit 1)`;
  const dayEdge = desc ? sql`(found.at + 1)::timestamp at time zone 'UTC'` : sql`found.at::timestamp at time zone 'UTC'`;
  // Descending, the page starts before the end of the hour found; ascending, at its start.
  const edge = desc ? sql`coalesce(b.at + interval '1 hour', 'infinity')` : sql`coalesce(b.at, '-infinity')`;
  const fromEdge = sql.raw(desc ? '<' : '>=');
  return sql<{ id: string; created_at: Date }>`select p.id, p.created_at from (select ${edge} as edge, ${offset} - coalesce(b.before, 0) as skip
    from (select 1) one left join (
      with recursive days(at, held, before) as (
          select at, held, 0::bigint from ${next('consent_daily_stats', 'day', sql``)} first
            where not exists (select 1 from consents where account_id = ${accountId} and chain_seq < 0)
          union all
          select d.at, d.held, days.before + days.held from days
            cross join lateral ${next('consent_daily_stats', 'day', sql`and day ${beyond} days.at`)} d
            where days.before + days.held <= ${offset}
        ), found as (
          select at, before from days where before + held > ${offset}
        ), hours(at, held, before) as (
          select h.at, h.held, found.before from found
            cross join lateral ${next('consent_hourly_counts', 'hour', sql`and hour ${beyond}${desc ? sql`` : sql`=`} ${dayEdge}`)} h
          union all
          select h.at, h.held, hours.before + hours.held from hours
            cross join lateral ${next('consent_hourly_counts', 'hour', sql`and hour ${beyond} hours.at`)} h
            where hours.before + hours.held <= ${offset}
        )
      select at, before from hours where before + held > ${offset}
    ) b on true) s
    cross join lateral (select id, created_at from consents where account_id = ${accountId} and created_at ${fromEdge} s.edge
      order by created_at ${direction}, id ${direction} offset s.skip limit ${sql.lit(limit)}) p`;
}
