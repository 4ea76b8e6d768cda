import { sql, type Kysely } from 'kysely';

/**
 * What a listing's count by time window adds up instead of scanning the account's index:
 * - `consent_daily_stats.removed`: how many of the day's consents retention has removed since. The
 *   day's statistics keep counting them (they are what happened that day); `consents - removed` is
 *   how many the table still holds. Removals before this migration are found by counting what each
 *   day still holds.
 * - `consent_hourly_counts`: the same per UTC hour, for the partial days at a window's ends, so that
 *   at most two partial hours are counted in the index (a day of a busy account is tens of
 *   thousands of consents; an hour, a few thousand).
 * Rows written around the writer (negative `chain_seq`) are in neither.
 *
 * And `consents` is vacuumed after every 10,000 inserts instead of after a fifth of the table (at
 * ten million consents, two million): a listing walks its offset and counts its partial hours in
 * the index alone only where the visibility map marks the pages all-visible, and the newest pages,
 * where listings start, were the ones never marked. On an append-only table each run reads only the
 * pages written since the last. (The embedded database has no autovacuum; the setting is inert there.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table consent_daily_stats add column removed integer not null default 0;
    update consent_daily_stats d set removed = greatest(d.consents - (
        select count(*) from consents c where c.account_id = d.account_id and c.chain_seq > 0
          and c.created_at >= d.day::timestamp at time zone 'UTC' and c.created_at < (d.day + 1)::timestamp at time zone 'UTC'
      ), 0);
    create table consent_hourly_counts (
      account_id uuid not null references accounts (id) on delete cascade,
      hour timestamptz not null,
      consents integer not null default 0,
      removed integer not null default 0,
      primary key (account_id, hour)
    );
    insert into consent_hourly_counts (account_id, hour, consents)
      select account_id, date_trunc('hour', created_at at time zone 'UTC') at time zone 'UTC', count(*)
      from consents where chain_seq > 0 group by 1, 2;
    alter table consents set (autovacuum_vacuum_insert_threshold = 10000, autovacuum_vacuum_insert_scale_factor = 0);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table consents reset (autovacuum_vacuum_insert_threshold, autovacuum_vacuum_insert_scale_factor);
    drop table consent_hourly_counts;
    alter table consent_daily_stats drop column removed;
  `.execute(db);
}
