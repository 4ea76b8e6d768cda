import { sql, type Kysely } from 'kysely';

/**
 * What became of each invitation's email: `sent`, `failed` (retried with backoff) or
 * `not_configured` (no SMTP: the link went back to the admin who made the invitation). Null for
 * invitations made before this was tracked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table account_invitations
      add column email_status text check (email_status in ('sent', 'failed', 'not_configured')),
      add column email_sent_at timestamptz,
      add column email_attempts integer not null default 0,
      add column email_retry_at timestamptz;
    create index account_invitations_email_retry on account_invitations (email_retry_at) where email_status = 'failed';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index account_invitations_email_retry;
    alter table account_invitations
      drop column email_status, drop column email_sent_at, drop column email_attempts, drop column email_retry_at;
  `.execute(db);
}
