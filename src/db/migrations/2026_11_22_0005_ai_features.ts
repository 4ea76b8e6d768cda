import { sql, type Kysely } from 'kysely';

/**
 * Per-account AI settings. Only what the account has set is stored; the defaults live in the
 * code (src/modules/accounts/accounts.schema.ts), so that a new setting needs no data migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts add column ai_features jsonb not null default '{}';
    create index storage_items_processing_idx on storage_items (created_at, id) where status = 'processing';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index storage_items_processing_idx;
    alter table accounts drop column ai_features;
  `.execute(db);
}
