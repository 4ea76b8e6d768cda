import { sql } from 'kysely';
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
 * the live/inactive decision of the onboarding status. Rows are written in account order, so that
 * concurrent callers lock shared rows in the same order.
 */
export async function recordVisits(db: Executor, visits: Visit[]): Promise<void> {
  const sessions = [...new Map(visits.filter((v) => v.sessionId).map((v) => [`${v.accountId} ${v.sessionId}`, v])).values()]
    .sort(byAccountThenSession);
  const pageviews = new Map<string, number>();
  for (const visit of [...visits].sort(byAccountThenSession)) pageviews.set(visit.accountId, (pageviews.get(visit.accountId) ?? 0) + 1);
  await sql`with visit(account_id, session_id) as (
      select * from unnest(${sessions.map((v) => v.accountId)}::uuid[], ${sessions.map((v) => v.sessionId!)}::text[])
    ), previous as (
      select v.account_id, v.session_id, v.last_seen_at from account_visitors v join visit using (account_id, session_id)
    ), seen as (
      insert into account_visitors (account_id, session_id, last_seen_at)
      select account_id, session_id, now() from visit
      on conflict (account_id, session_id) do update set last_seen_at = excluded.last_seen_at
    ), views(account_id, pageviews) as (
      select * from unnest(${[...pageviews.keys()]}::uuid[], ${[...pageviews.values()]}::int[])
    )
    insert into account_daily_stats (account_id, day, pageviews, visitors)
    select views.account_id, current_date, views.pageviews,
      (select count(*) from visit left join previous using (account_id, session_id)
        where visit.account_id = views.account_id and (previous.last_seen_at is null or previous.last_seen_at < current_date))
    from views order by views.account_id
    on conflict (account_id, day) do update set
      pageviews = account_daily_stats.pageviews + excluded.pageviews,
      visitors = account_daily_stats.visitors + excluded.visitors`.execute(db);
}
