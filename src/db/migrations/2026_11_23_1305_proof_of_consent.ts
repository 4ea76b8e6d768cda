import { sql, type Kysely } from 'kysely';

/**
 * Proof of consent and consent analytics.
 * - Each consent gets its place in its account's hash chain (`chain_seq`, `hash`) and a separate
 *   hash of its personal fields (`personal_hash`, salted by `personal_salt`) so that erasure can
 *   drop those fields and the salt while the chain still verifies.
 * - `consent_chain_heads`: the last link of each account's chain; the writer advances it with a
 *   compare-and-set in the same statement as the rows, so that two instances cannot fork a chain.
 * - `consent_chain_anchors`: where verification starts (the last consent removed by retention).
 *   Consents stored before this migration are numbered but not hashed: the chain starts after them.
 * - Rollups kept by the writer in the same statement: `consent_daily_stats` (which also holds the
 *   day's last link: the daily checkpoint) and `consent_daily_categories`.
 * - `account_daily_sketches`: a HyperLogLog of the day's visitors, merged for weeks, months, totals.
 * - `consent_erasures`: who erased whose consents, and when (the subject only as a hash).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts add column consent_retention_days integer not null default 730
      check (consent_retention_days between 30 and 3650);

    alter table consents
      add column chain_seq bigint,
      add column hash text,
      add column personal_hash text,
      add column personal_salt text,
      add column erased_at timestamptz;
    update consents c set chain_seq = numbered.seq
      from (select id, row_number() over (partition by account_id order by created_at, id) as seq from consents) numbered
      where numbered.id = c.id;
    -- A row written around the writer (by hand, by a script) gets a negative number: outside the
    -- chain, never in the way of the writer's, and reported by verification.
    create sequence consents_unchained_seq;
    alter table consents alter column chain_seq set default -nextval('consents_unchained_seq'),
      alter column chain_seq set not null;
    create unique index consents_account_chain_idx on consents (account_id, chain_seq);

    create table consent_chain_heads (
      account_id uuid primary key references accounts (id) on delete cascade,
      seq bigint not null,
      hash text not null
    );
    create table consent_chain_anchors (
      account_id uuid primary key references accounts (id) on delete cascade,
      seq bigint not null,
      hash text not null,
      updated_at timestamptz not null default now()
    );
    insert into consent_chain_heads (account_id, seq, hash)
      select account_id, max(chain_seq), repeat('0', 64) from consents group by account_id;
    insert into consent_chain_anchors (account_id, seq, hash)
      select account_id, seq, hash from consent_chain_heads;

    create table consent_daily_stats (
      account_id uuid not null references accounts (id) on delete cascade,
      day date not null,
      consents integer not null default 0,
      accept_all integer not null default 0,
      accept_custom integer not null default 0,
      accept_necessary integer not null default 0,
      gpc integer not null default 0,
      head_seq bigint not null default 0,
      head_id uuid,
      head_hash text,
      primary key (account_id, day)
    );
    insert into consent_daily_stats (account_id, day, consents, accept_all, accept_custom, accept_necessary, gpc)
      select account_id, (created_at at time zone 'UTC')::date, count(*),
        count(*) filter (where user_preferences->>'accept_type' = 'all'),
        count(*) filter (where user_preferences->>'accept_type' = 'custom'),
        count(*) filter (where user_preferences->>'accept_type' = 'necessary'),
        count(*) filter (where gpc)
      from consents group by 1, 2;

    create table consent_daily_categories (
      account_id uuid not null references accounts (id) on delete cascade,
      day date not null,
      category_id uuid not null,
      accepted integer not null default 0,
      rejected integer not null default 0,
      primary key (account_id, day, category_id)
    );
    insert into consent_daily_categories (account_id, day, category_id, accepted, rejected)
      select account_id, day, category_id::uuid, sum(accepted), sum(rejected) from (
        select account_id, (created_at at time zone 'UTC')::date as day, jsonb_array_elements_text(user_preferences->'accepted_categories') as category_id, 1 as accepted, 0 as rejected from consents
        union all
        select account_id, (created_at at time zone 'UTC')::date, jsonb_array_elements_text(user_preferences->'rejected_categories'), 0, 1 from consents
      ) choices group by 1, 2, 3;

    create table account_daily_sketches (
      account_id uuid not null references accounts (id) on delete cascade,
      day date not null,
      registers bytea not null,
      primary key (account_id, day)
    );

    create table consent_erasures (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      subject_type text not null check (subject_type in ('user_id', 'session_id')),
      subject_hash text not null,
      consents integer not null,
      erased_by_type text not null,
      erased_by_id uuid,
      created_at timestamptz not null default now()
    );
    create index consent_erasures_account_idx on consent_erasures (account_id, created_at, id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table consent_erasures;
    drop table account_daily_sketches;
    drop table consent_daily_categories;
    drop table consent_daily_stats;
    drop table consent_chain_anchors;
    drop table consent_chain_heads;
    drop index consents_account_chain_idx;
    alter table consents drop column chain_seq, drop column hash, drop column personal_hash,
      drop column personal_salt, drop column erased_at;
    drop sequence consents_unchained_seq;
    alter table accounts drop column consent_retention_days;
  `.execute(db);
}
