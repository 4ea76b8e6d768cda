import { sql, type Kysely } from 'kysely';

/**
 * The IAB's Global Vendor List (issue 47), one row per version: the same for every tenant, kept in
 * the database so that every instance serves the same version. `vendor_list` is the
 * `vendor-list.json` as loaded (GVL v3); `translations` holds the declarations of `purposes-xx.json`
 * by language code (`de`, `pt-pt`). The highest version is the one in force;
 * `updated_at` moves when translations are added to a stored version, so that instances read it again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table tcf_vendor_lists (
      version integer primary key,
      tcf_policy_version integer not null,
      last_updated timestamptz not null,
      vendor_list jsonb not null,
      translations jsonb not null default '{}',
      fetched_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table tcf_vendor_lists`.execute(db);
}
