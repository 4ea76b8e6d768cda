import { sql, type Kysely } from 'kysely';

/**
 * The account's own texts in other languages than its default one: a category's name and
 * description, a service's, and a storage item's description and duration (its name is the
 * cookie's, never translated). Keyed by language code, e.g. `{"de": {"name": "Statistik", "description": "…"}}`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table categories add column translations jsonb not null default '{}';
    alter table services add column translations jsonb not null default '{}';
    alter table storage_items add column translations jsonb not null default '{}';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table categories drop column translations;
    alter table services drop column translations;
    alter table storage_items drop column translations;
  `.execute(db);
}
