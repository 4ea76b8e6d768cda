import { sql, type Kysely } from 'kysely';

/**
 * A person may turn down what the AI only suggested: the action keeps its record, marked
 * `rejected`, so that the log still shows what was proposed and who said no to it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table ai_actions drop constraint ai_actions_status_check;
    alter table ai_actions add constraint ai_actions_status_check check (status in ('applied', 'suggested', 'reverted', 'rejected'));
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    update ai_actions set status = 'suggested' where status = 'rejected';
    alter table ai_actions drop constraint ai_actions_status_check;
    alter table ai_actions add constraint ai_actions_status_check check (status in ('applied', 'suggested', 'reverted'));
  `.execute(db);
}
