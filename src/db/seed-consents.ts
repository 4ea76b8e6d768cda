import { sql } from 'kysely';
import type { Executor } from './kysely.ts';

/**
 * Bulk-creates synthetic consents for one account, inside the database, for benchmarks and
 * capacity tests: `sessions` distinct session ids, spread over the last 30 days.
 */
export async function seedConsents(db: Executor, accountId: string, count: number, chunk = 100_000): Promise<number> {
  const sessions = Math.max(1, Math.floor(count / 5));
  for (let done = 0; done < count; done += chunk) {
    const size = Math.min(chunk, count - done);
    await sql`insert into consents (id, account_id, session_id, user_id, user_preferences, url, gpc, created_at)
      select gen_random_uuid(), ${accountId}::uuid, 'seed-' || (n % ${sessions}), case when n % 3 = 0 then 'user-' || (n % 1000) end,
        '{"accept_type":"all","accepted_categories":[],"rejected_categories":[],"accepted_services":{},"rejected_services":{}}'::jsonb,
        'https://example.com/', false, now() - (n % 2592000) * interval '1 second'
      from generate_series(${done}::bigint, ${done + size - 1}::bigint) as n`.execute(db);
  }
  await sql`insert into account_consent_counts (account_id, consents) values (${accountId}::uuid, ${count})
    on conflict (account_id) do update set consents = account_consent_counts.consents + excluded.consents`.execute(db);
  // Sets the visibility map, so that listings walk their offsets in the index alone from the start.
  await sql`vacuum analyze consents`.execute(db);
  return count;
}
