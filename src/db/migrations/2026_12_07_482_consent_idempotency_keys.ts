import { sql, type Kysely } from 'kysely';

/**
 * The idempotency keys of recent consents: a client that did not hear the answer to a consent (a
 * connection lost, an instance killed) sends it again with the same key and is answered with the
 * first consent instead of recording a second. One row per account and key, written in the same
 * statement as its consent (so a key is stored exactly when its consent is), kept for at least
 * 24 hours (`created_at`: pruned by the consent writer, see idempotency-keys.ts). No link to the
 * consent row: retention and erasure remove consents without looking here, and an answer names
 * only the consent's id and time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table consent_idempotency_keys (
      account_id uuid not null references accounts (id) on delete cascade,
      key text not null,
      consent_id uuid not null,
      created_at timestamptz not null,
      primary key (account_id, key)
    );
    create index consent_idempotency_keys_created_idx on consent_idempotency_keys (created_at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table consent_idempotency_keys`.execute(db);
}
