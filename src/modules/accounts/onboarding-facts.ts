import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/kysely.ts';

/**
 * The facts behind the onboarding status. Each is written once: later calls touch no row.
 */
export async function markVendorsSetup(db: Executor, accountId: string): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ vendors_setup_at: new Date() })
    .where('id', '=', accountId)
    .where('vendors_setup_at', 'is', null)
    .execute();
}

/** One account's visits on one day: every pageview, and the distinct sessions among them. */
export interface VisitTally {
  accountId: string;
  pageviews: number;
  sessions: string[];
}

/**
 * The pageviews of each account; one visitor per session not yet seen on `day` (UTC). Sessions are
 * remembered for the live/inactive decision of the onboarding status. Rows are written in account
 * order, so that concurrent writers lock shared rows in the same order.
 */
export function visitCounting(day: string, tallies: VisitTally[]): RawBuilder<unknown> {
  const ordered = [...tallies].sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
  const sessions = ordered.flatMap((tally) => [...new Set(tally.sessions)].sort().map((sessionId) => [tally.accountId, sessionId]));
  return sql`visit(account_id, session_id) as (
      select * from unnest(${sessions.map(([accountId]) => accountId)}::uuid[], ${sessions.map(([, sessionId]) => sessionId)}::text[])
    ), fresh(account_id, visitors) as (
      -- Read in the statement's snapshot, before the upsert below touches the sessions.
      select visit.account_id, count(*) from visit left join account_visitors v using (account_id, session_id)
      where v.last_seen_at is null or (v.last_seen_at at time zone 'UTC')::date < ${day}::date
      group by visit.account_id
    ), seen as (
      -- A visit is dated by the day it was counted on (now, when it is today): a flush of an
      -- earlier day's counts must not make its sessions look seen later.
      insert into account_visitors as v (account_id, session_id, last_seen_at)
      select account_id, session_id, least(now(), ((${day}::date + 1)::timestamp at time zone 'UTC') - interval '1 millisecond') from visit
      on conflict (account_id, session_id) do update set last_seen_at = greatest(v.last_seen_at, excluded.last_seen_at)
    ), views(account_id, pageviews) as (
      select * from unnest(${ordered.map((t) => t.accountId)}::uuid[], ${ordered.map((t) => t.pageviews)}::int[])
    ), daily as (
      insert into account_daily_stats (account_id, day, pageviews, visitors)
      select account_id, ${day}::date, views.pageviews, coalesce(fresh.visitors, 0)
      from views left join fresh using (account_id) order by account_id
      on conflict (account_id, day) do update set
        pageviews = account_daily_stats.pageviews + excluded.pageviews,
        visitors = account_daily_stats.visitors + excluded.visitors
    )`;
}

export async function recordVisits(db: Executor, day: string, tallies: VisitTally[]): Promise<void> {
  await sql`with ${visitCounting(day, tallies)} select 1`.execute(db);
}

/** Marks the accounts whose banner was seen as installed (once: later calls touch no row). */
export async function markCodeInstalled(db: Executor, accountIds: string[]): Promise<void> {
  if (accountIds.length === 0) return;
  await sql`update accounts set code_installed_at = now() where id = any(${accountIds}::uuid[]) and code_installed_at is null`.execute(db);
}
