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

/**
 * Counts a pageview for the account today and, when the session has not been seen yet today,
 * a visitor; remembers the session for the live/inactive decision.
 */
export async function recordVisit(db: Executor, accountId: string, sessionId: string | undefined): Promise<void> {
  if (!sessionId) {
    await sql`insert into account_daily_stats (account_id, day, pageviews, visitors)
      values (${accountId}, current_date, 1, 0)
      on conflict (account_id, day) do update set pageviews = account_daily_stats.pageviews + 1`.execute(db);
    return;
  }
  await sql`with previous as (
      select last_seen_at from account_visitors where account_id = ${accountId} and session_id = ${sessionId}
    ), seen as (
      insert into account_visitors (account_id, session_id, last_seen_at) values (${accountId}, ${sessionId}, now())
      on conflict (account_id, session_id) do update set last_seen_at = excluded.last_seen_at
    )
    insert into account_daily_stats (account_id, day, pageviews, visitors)
    values (${accountId}, current_date, 1,
      case when coalesce((select last_seen_at from previous) < current_date, true) then 1 else 0 end)
    on conflict (account_id, day) do update set
      pageviews = account_daily_stats.pageviews + 1,
      visitors = account_daily_stats.visitors + excluded.visitors`.execute(db);
}
