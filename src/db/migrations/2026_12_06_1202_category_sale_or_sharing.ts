import { sql, type Kysely } from 'kysely';

/**
 * Whether opting out of the sale or sharing of personal data (and of targeted advertising), as US
 * state laws let visitors do, switches a category off. Marketing is such a category, and existing
 * categories of that slug are marked so; an account marks others itself.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table categories add column sale_or_sharing boolean not null default false;
    update categories set sale_or_sharing = true where slug = 'marketing';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table categories drop column sale_or_sharing`.execute(db);
}
