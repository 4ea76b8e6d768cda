import { sql, type Kysely } from 'kysely';

/**
 * The script (or response) a scan saw write a storage item, as a URL: the AI reads a first-party
 * name a third party's script wrote as that party's. Null for items a person or the API made, and
 * where the browser did not tell.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table storage_items add column set_by text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table storage_items drop column set_by`.execute(db);
}
