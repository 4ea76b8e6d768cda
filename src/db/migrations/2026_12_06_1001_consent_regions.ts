import { sql, type Kysely } from 'kysely';

/**
 * Where a consent was given and under which regime (issue 46):
 * - on every consent, `country` (ISO 3166-1 alpha-2), `region` (ISO 3166-2, `US-CA`), `mode` (the
 *   banner's mode applied: `opt-in`, `opt-out`, `notice`, `none`) and `gpp_string` (the IAB GPP
 *   string sent with it), each null where unknown or none. Nullable columns without a default are
 *   added without rewriting the table; the mode's check is `not valid` because every row already
 *   stored holds null, which passes it: validating would read millions of rows under the table's lock.
 *   The view `consent_records` shows them (a view gains columns only at its end).
 * - `consent_daily_country_modes`: consents per account, UTC day, country and mode, by accept type,
 *   with the opt-outs (a consent in `opt-out` mode that rejected a category) and GPC, kept by the
 *   consent writer with its other rollups, so that `GET /stats?by=country|mode` reads a few rows a
 *   day instead of every consent of the period. An unknown country or an unrecorded mode is `''`
 *   (a key column cannot be null). The consents already stored have neither: each of their days is
 *   one row keyed `''`, `''`, copied from `consent_daily_stats`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table consents
      add column country text,
      add column region text,
      add column mode text,
      add column gpp_string text,
      add constraint consents_mode_check check (mode in ('opt-in', 'opt-out', 'notice', 'none')) not valid;
    create or replace view consent_records as
      select c.id, c.account_id, c.session_id, c.user_id, c.accept_type,
        ch.accepted_categories, ch.rejected_categories, ch.accepted_services, ch.rejected_services,
        c.url, c.user_agent, c.ip_address, c.gpc, c.created_at, c.chain_seq, c.hash, c.personal_hash, c.personal_salt, c.erased_at,
        ch.text_bytes as choice_bytes, ch.category_count as choice_categories,
        c.country, c.region, c.mode, c.gpp_string
      from consents c left join consent_choices ch on ch.id = c.choice_id;
    create table consent_daily_country_modes (
      account_id uuid not null references accounts (id) on delete cascade,
      day date not null,
      country text not null,
      mode text not null,
      consents integer not null default 0,
      accept_all integer not null default 0,
      accept_custom integer not null default 0,
      accept_necessary integer not null default 0,
      opt_outs integer not null default 0,
      gpc integer not null default 0,
      primary key (account_id, day, country, mode)
    );
    insert into consent_daily_country_modes (account_id, day, country, mode, consents, accept_all, accept_custom, accept_necessary, gpc)
      select account_id, day, '', '', consents, accept_all, accept_custom, accept_necessary, gpc from consent_daily_stats;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table consent_daily_country_modes;
    drop view consent_records;
    create view consent_records as
      select c.id, c.account_id, c.session_id, c.user_id, c.accept_type,
        ch.accepted_categories, ch.rejected_categories, ch.accepted_services, ch.rejected_services,
        c.url, c.user_agent, c.ip_address, c.gpc, c.created_at, c.chain_seq, c.hash, c.personal_hash, c.personal_salt, c.erased_at,
        ch.text_bytes as choice_bytes, ch.category_count as choice_categories
      from consents c left join consent_choices ch on ch.id = c.choice_id;
    alter table consents drop constraint consents_mode_check,
      drop column country, drop column region, drop column mode, drop column gpp_string;
  `.execute(db);
}
