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

export async function markCodeInstalled(db: Executor, accountId: string): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ code_installed_at: new Date() })
    .where('id', '=', accountId)
    .where('code_installed_at', 'is', null)
    .execute();
}

export interface Visit {
  accountId: string;
  /** The visitor's session, when known: it counts a visitor once a day and for the live status. */
  sessionId?: string;
}

const byAccountThenSession = (a: Visit, b: Visit) =>
  a.accountId === b.accountId ? ((a.sessionId ?? '') < (b.sessionId ?? '') ? -1 : 1) : a.accountId < b.accountId ? -1 : 1;

/**
 * One pageview per visit; one visitor per session not yet seen today. Sessions are remembered for
 * the live/inactive decision of the onboarding status. As common table expressions, so that the
 * consent writer counts a batch's visits in the same statement as its consents. Rows are written
 * in account order, so that concurrent callers lock shared rows in the same order.
 */
export function visitCounting(visits: Visit[]): RawBuilder<unknown> {
  const sessions = [...new Map(visits.filter((v) => v.sessionId).map((v) => [`${v.accountId} ${v.sessionId}`, v])).values()]
    .sort(byAccountThenSession);
  const pageviews = new Map<string, number>();
  for (const visit of [...visits].sort(byAccountThenSession)) pageviews.set(visit.accountId, (pageviews.get(visit.accountId) ?? 0) + 1);
  return sql`visit(account_id, session_id) as (
      select * from unnest(${sessions.map((v) => v.accountId)}::uuid[], ${sessions.map((v) => v.sessionId!)}::text[])
    ), fresh(account_id, visitors) as (
      -- Read in the statement's snapshot, before the upsert below touches the sessions.
      select visit.account_id, count(*) from visit left join account_visitors v using (account_id, session_id)
      where v.last_seen_at is null or v.last_seen_at < current_date
      group by visit.account_id
    ), seen as (
      insert into account_visitors (account_id, session_id, last_seen_at)
      select account_id, session_id, now() from visit
      on conflict (account_id, session_id) do update set last_seen_at = excluded.last_seen_at
    ), views(account_id, pageviews) as (
      select * from unnest(${[...pageviews.keys()]}::uuid[], ${[...pageviews.values()]}::int[])
    ), daily as (
      insert into account_daily_stats (account_id, day, pageviews, visitors)
      select account_id, current_date, views.pageviews, coalesce(fresh.visitors, 0)
      from views left join fresh using (account_id) order by account_id
      on conflict (account_id, day) do update set
        pageviews = account_daily_stats.pageviews + excluded.pageviews,
        visitors = account_daily_stats.visitors + excluded.visitors
    )`;
}

export async function recordVisits(db: Executor, visits: Visit[]): Promise<void> {
  await sql`with ${visitCounting(visits)} select 1`.execute(db);
}
