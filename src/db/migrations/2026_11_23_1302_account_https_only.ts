import { sql, type Kysely } from 'kysely';

/**
 * Whether the widget answers only pages served over https on the default port. Accounts that
 * existed before keep what they had (false); new accounts get true.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts add column https_only boolean not null default false;
    alter table accounts alter column https_only set default true;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts drop column https_only`.execute(db);
}
