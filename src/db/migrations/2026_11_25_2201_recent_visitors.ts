import { sql, type Kysely } from 'kysely';

/**
 * The onboarding status needs to know whether an account had 10 distinct visitors in 30 days, not
 * every session it ever had: `account_visitors` held one row per session (with two indexes, about
 * 190 bytes per consent recorded). Each account now keeps only its 10 most recently seen sessions,
 * which answers that question exactly: the tenth most recent was seen within 30 days or not.
 * Daily visitor counts come from the day's sketch instead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table account_recent_visitors (
      account_id uuid not null references accounts (id) on delete cascade,
      session_id text not null,
      last_seen_at timestamptz not null,
      primary key (account_id, session_id)
    );
    insert into account_recent_visitors (account_id, session_id, last_seen_at)
      select account_id, session_id, last_seen_at from (
        select account_id, session_id, last_seen_at,
          row_number() over (partition by account_id order by last_seen_at desc, session_id) as recency
        from account_visitors
      ) ranked where recency <= 10;
    drop table account_visitors;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table account_visitors (
      account_id uuid not null references accounts (id) on delete cascade,
      session_id text not null,
      last_seen_at timestamptz not null default now(),
      primary key (account_id, session_id)
    );
    create index account_visitors_recent_idx on account_visitors (account_id, last_seen_at);
    insert into account_visitors (account_id, session_id, last_seen_at) select account_id, session_id, last_seen_at from account_recent_visitors;
    drop table account_recent_visitors;
  `.execute(db);
}
