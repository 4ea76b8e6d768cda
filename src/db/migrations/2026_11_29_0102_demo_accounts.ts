import { sql, type Kysely } from 'kysely';

/**
 * Accounts made by the `demo` command say so: their catalogue (`_ga`, `_fbp` on shop.example.com)
 * is an example, which the dashboard must not let pass for the owner's site. Demo accounts made
 * before are known by their group's external id (`demo-…`) and their example domain.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts add column demo boolean not null default false;
    update accounts set demo = true
      where name = 'Demo Shop' and group_id in (select id from groups where external_id like 'demo-%');
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts drop column demo`.execute(db);
}
