import { sql, type Kysely } from 'kysely';

/**
 * `consent_daily_stats.removed`: how many of the day's consents retention has removed since. The
 * day's statistics keep counting them (they are what happened that day), and `consents - removed`
 * is how many the table still holds, so that a listing's count over whole days adds up rollups
 * instead of scanning millions of index entries. Removals before this migration are found by
 * counting what each day still holds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table consent_daily_stats add column removed integer not null default 0;
    update consent_daily_stats d set removed = greatest(d.consents - (
        select count(*) from consents c where c.account_id = d.account_id and c.chain_seq > 0
          and c.created_at >= d.day::timestamp at time zone 'UTC' and c.created_at < (d.day + 1)::timestamp at time zone 'UTC'
      ), 0);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table consent_daily_stats drop column removed`.execute(db);
}
