import { sql, type Kysely } from 'kysely';

/**
 * The TCF signals of a consent (issue 47):
 * - `tc_string` (the IAB TCF TC string) and `ac_string` (Google's Additional Consent string), null
 *   where none: nullable columns without a default, added without rewriting the table. The view
 *   `consent_records` shows them at its end (a view gains columns only there).
 * - `consent_daily_tcf_purposes`: per account, UTC day and TCF purpose (1–11), how many of the
 *   day's TC strings gave consent to the purpose and how many left its legitimate interest standing
 *   (not objected to); purpose 0 counts the day's TC strings themselves. Kept by the consent writer
 *   from the strings decoded when they are recorded, so that `GET /stats?by=tcf_purpose` reads a
 *   few rows a day instead of decoding every string of the period.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table consents add column tc_string text, add column ac_string text;
    create or replace view consent_records as
      select c.id, c.account_id, c.session_id, c.user_id, c.accept_type,
        ch.accepted_categories, ch.rejected_categories, ch.accepted_services, ch.rejected_services,
        c.url, c.user_agent, c.ip_address, c.gpc, c.created_at, c.chain_seq, c.hash, c.personal_hash, c.personal_salt, c.erased_at,
        ch.text_bytes as choice_bytes, ch.category_count as choice_categories,
        c.country, c.region, c.mode, c.gpp_string, c.tc_string, c.ac_string
      from consents c left join consent_choices ch on ch.id = c.choice_id;
    create table consent_daily_tcf_purposes (
      account_id uuid not null references accounts (id) on delete cascade,
      day date not null,
      purpose smallint not null,
      consents integer not null default 0,
      legitimate_interests integer not null default 0,
      primary key (account_id, day, purpose)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table consent_daily_tcf_purposes;
    drop view consent_records;
    create view consent_records as
      select c.id, c.account_id, c.session_id, c.user_id, c.accept_type,
        ch.accepted_categories, ch.rejected_categories, ch.accepted_services, ch.rejected_services,
        c.url, c.user_agent, c.ip_address, c.gpc, c.created_at, c.chain_seq, c.hash, c.personal_hash, c.personal_salt, c.erased_at,
        ch.text_bytes as choice_bytes, ch.category_count as choice_categories,
        c.country, c.region, c.mode, c.gpp_string
      from consents c left join consent_choices ch on ch.id = c.choice_id;
    alter table consents drop column tc_string, drop column ac_string;
  `.execute(db);
}
