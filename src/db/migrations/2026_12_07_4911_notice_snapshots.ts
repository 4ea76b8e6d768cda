import { sql, type Kysely } from 'kysely';

/**
 * What the visitor was shown (issue 49):
 * - `notice_snapshots`: each distinct public banner configuration an account's widget served, once
 *   per account and content hash (`hash`: SHA-256, hex, of `content`, the configuration's canonical
 *   JSON: keys sorted, no whitespace). Immutable: nothing updates a row; they go with their account.
 * - `consents.notice_hash`: the snapshot the visitor saw when choosing; null for consents recorded
 *   before it was kept, or sent without one (a backend's). A nullable column without a default is
 *   added without rewriting the table; the view `consent_records` gains it at its end.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table notice_snapshots (
      account_id uuid not null references accounts (id) on delete cascade,
      hash text not null,
      content text not null,
      created_at timestamptz not null default now(),
      primary key (account_id, hash)
    );
    create index notice_snapshots_account_created on notice_snapshots (account_id, created_at, hash);
    alter table consents add column notice_hash text;
    create or replace view consent_records as
      select c.id, c.account_id, c.session_id, c.user_id, c.accept_type,
        ch.accepted_categories, ch.rejected_categories, ch.accepted_services, ch.rejected_services,
        c.url, c.user_agent, c.ip_address, c.gpc, c.created_at, c.chain_seq, c.hash, c.personal_hash, c.personal_salt, c.erased_at,
        ch.text_bytes as choice_bytes, ch.category_count as choice_categories,
        c.country, c.region, c.mode, c.gpp_string, c.notice_hash
      from consents c left join consent_choices ch on ch.id = c.choice_id;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop view consent_records;
    create view consent_records as
      select c.id, c.account_id, c.session_id, c.user_id, c.accept_type,
        ch.accepted_categories, ch.rejected_categories, ch.accepted_services, ch.rejected_services,
        c.url, c.user_agent, c.ip_address, c.gpc, c.created_at, c.chain_seq, c.hash, c.personal_hash, c.personal_salt, c.erased_at,
        ch.text_bytes as choice_bytes, ch.category_count as choice_categories,
        c.country, c.region, c.mode, c.gpp_string
      from consents c left join consent_choices ch on ch.id = c.choice_id;
    alter table consents drop column notice_hash;
    drop table notice_snapshots;
  `.execute(db);
}
