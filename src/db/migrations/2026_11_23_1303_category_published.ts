import { sql, type Kysely } from 'kysely';

/**
 * Categories the AI creates stay out of the banner until an admin publishes them (or the account
 * lets the AI approve). Existing categories, and those people create, are published.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table categories add column published boolean not null default true`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table categories drop column published`.execute(db);
}
