import { sql, type Kysely } from 'kysely';

/**
 * The banner of each account: only the settings the account has changed are stored (the defaults
 * live in src/modules/banner/banner.schema.ts), and the revision of its consent request, which a
 * visitor's stored choice must match.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts add column banner jsonb not null default '{}';
    alter table accounts add column revision integer not null default 1;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts drop column revision;
    alter table accounts drop column banner;
  `.execute(db);
}
