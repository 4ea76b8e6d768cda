import { sql, type Kysely } from 'kysely';

/**
 * The audit log (issue 49): one row per change of an account's configuration — who (`actor_type`:
 * user, token, partner, ai, system, and its id), when, what (`resource_type`, `resource_id`,
 * `action`), and the fields before and after, secrets left out. It goes with its account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table audit_log (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      actor_type text not null check (actor_type in ('user', 'token', 'partner', 'ai', 'system')),
      actor_id text,
      resource_type text not null,
      resource_id text,
      action text not null,
      before jsonb,
      after jsonb,
      created_at timestamptz not null default now()
    );
    create index audit_log_account_created on audit_log (account_id, created_at, id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table audit_log`.execute(db);
}
