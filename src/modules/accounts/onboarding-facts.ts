import { sql } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import { LIVE_VISITORS } from './onboarding.ts';

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

/** The day's distinct visitors of each account, read from its merged sketch after a flush. */
export async function setDailyVisitors(db: Executor, day: string, visitors: { accountId: string; count: number }[]): Promise<void> {
  if (visitors.length === 0) return;
  await sql`update account_daily_stats d set visitors = u.visitors
    from unnest(${visitors.map((v) => v.accountId)}::uuid[], ${visitors.map((v) => v.count)}::int[]) as u(account_id, visitors)
    where d.account_id = u.account_id and d.day = ${day}::date`.execute(db);
}

/** Marks the accounts whose banner was seen as installed (once: later calls touch no row). */
export async function markCodeInstalled(db: Executor, accountIds: string[]): Promise<void> {
  if (accountIds.length === 0) return;
  await sql`update accounts set code_installed_at = now() where id = any(${accountIds}::uuid[]) and code_installed_at is null`.execute(db);
}
