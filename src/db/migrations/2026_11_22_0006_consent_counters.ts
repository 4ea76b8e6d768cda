import { sql, type Kysely } from 'kysely';

/** Exact consent counts per account, kept in the same transaction as the inserts they count. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table account_consent_counts (
      account_id uuid primary key references accounts (id) on delete cascade,
      consents bigint not null default 0
    );
    insert into account_consent_counts (account_id, consents)
      select account_id, count(*) from consents group by account_id;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table account_consent_counts`.execute(db);
}
