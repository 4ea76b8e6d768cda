import { sql, type Kysely } from 'kysely';

/**
 * A choice's size as text (`text_bytes`): its service maps as JSON and 37 bytes per category id;
 * and its number of categories (`category_count`), which the CSV export also writes by name.
 * Reading consents by bytes as well as by rows (the export, the chain's verification) needs each
 * row's size before its lists are read; choices are shared by many consents, so the size is kept
 * once per choice, computed by PostgreSQL when the choice is written, and shown on the view.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table consent_choices add column text_bytes integer generated always as (
      coalesce(octet_length(accepted_services::text), 0) + coalesce(octet_length(rejected_services::text), 0)
        + 37 * (coalesce(cardinality(accepted_categories), 0) + coalesce(cardinality(rejected_categories), 0))
    ) stored,
    add column category_count integer generated always as (
      coalesce(cardinality(accepted_categories), 0) + coalesce(cardinality(rejected_categories), 0)
    ) stored;
    create or replace view consent_records as
      select c.id, c.account_id, c.session_id, c.user_id, c.accept_type,
        ch.accepted_categories, ch.rejected_categories, ch.accepted_services, ch.rejected_services,
        c.url, c.user_agent, c.ip_address, c.gpc, c.created_at, c.chain_seq, c.hash, c.personal_hash, c.personal_salt, c.erased_at,
        ch.text_bytes as choice_bytes, ch.category_count as choice_categories
      from consents c left join consent_choices ch on ch.id = c.choice_id;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop view consent_records;
    create view consent_records as
      select c.id, c.account_id, c.session_id, c.user_id, c.accept_type,
        ch.accepted_categories, ch.rejected_categories, ch.accepted_services, ch.rejected_services,
        c.url, c.user_agent, c.ip_address, c.gpc, c.created_at, c.chain_seq, c.hash, c.personal_hash, c.personal_salt, c.erased_at
      from consents c left join consent_choices ch on ch.id = c.choice_id;
    alter table consent_choices drop column text_bytes, drop column category_count;
  `.execute(db);
}
