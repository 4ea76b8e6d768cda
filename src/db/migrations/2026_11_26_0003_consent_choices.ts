import { sql, type Kysely } from 'kysely';

/**
 * A consent's category and service lists stored once per account and distinct choice
 * (`consent_choices`), and referred to by each consent (`choice_id`), instead of on every row:
 * visitors of one site make a handful of distinct choices, and the two `uuid[]` lists alone took
 * ~98 of the 295 bytes of a seeded row (issue #19). A consent whose lists are all empty has no
 * choice (`choice_id` null), as the lists were null before. The accept type stays on the row
 * (the statistics count it). A choice is found by the SHA-256 of its four lists written as one
 * jsonb array (`digest`), computed by PostgreSQL, here and in the writer alike. Reads go through
 * the view `consent_records`, which puts the lists back on each consent; the chain's hashes are
 * computed over the same document as before, so every stored link still verifies.
 */
/** A choice's digest and whether a row has one, over the four lists of the row (or of `c`). */
const LISTS = 'accepted_categories, rejected_categories, accepted_services, rejected_services';
const digestOf = (lists: string) => sql.raw(`sha256(convert_to(jsonb_build_array(${lists})::text, 'UTF8'))`);
const listed = (lists: string) => sql.raw(`num_nonnulls(${lists}) > 0`);
const C_LISTS = 'c.accepted_categories, c.rejected_categories, c.accepted_services, c.rejected_services';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table consent_choices (
      id bigint generated always as identity primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      digest bytea not null,
      accepted_categories uuid[],
      rejected_categories uuid[],
      accepted_services jsonb,
      rejected_services jsonb,
      unique (account_id, digest)
    );
    insert into consent_choices (account_id, digest, accepted_categories, rejected_categories, accepted_services, rejected_services)
      select distinct on (account_id, digest) account_id, digest, accepted_categories, rejected_categories, accepted_services, rejected_services
      from (select account_id, ${sql.raw(LISTS)}, ${digestOf(LISTS)} as digest from consents where ${listed(LISTS)}) listed
      order by account_id, digest;
    alter table consents add column choice_id bigint;
    update consents c set choice_id = ch.id from consent_choices ch
      where ${listed(C_LISTS)} and ch.account_id = c.account_id and ch.digest = ${digestOf(C_LISTS)};
    alter table consents drop column accepted_categories, drop column rejected_categories,
      drop column accepted_services, drop column rejected_services;
    create view consent_records as
      select c.id, c.account_id, c.session_id, c.user_id, c.accept_type,
        ch.accepted_categories, ch.rejected_categories, ch.accepted_services, ch.rejected_services,
        c.url, c.user_agent, c.ip_address, c.gpc, c.created_at, c.chain_seq, c.hash, c.personal_hash, c.personal_salt, c.erased_at
      from consents c left join consent_choices ch on ch.id = c.choice_id;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop view consent_records;
    alter table consents add column accepted_categories uuid[], add column rejected_categories uuid[],
      add column accepted_services jsonb, add column rejected_services jsonb;
    update consents c set accepted_categories = ch.accepted_categories, rejected_categories = ch.rejected_categories,
        accepted_services = ch.accepted_services, rejected_services = ch.rejected_services
      from consent_choices ch where ch.id = c.choice_id;
    alter table consents drop column choice_id;
    drop table consent_choices;
  `.execute(db);
}
