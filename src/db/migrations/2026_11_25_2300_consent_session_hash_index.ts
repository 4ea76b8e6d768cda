import { sql, type Kysely } from 'kysely';

/**
 * The session lookup index held each consent's session id as text (about 76 bytes of index per
 * consent at 1M consents, more than the primary key). It now holds a 64-bit hash of it
 * (`hashtextextended`, built in on every supported PostgreSQL and in PGlite); queries match the hash
 * through the index and the text on the row, so a collision costs a row read, never a wrong answer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index consents_account_session_hash_idx on consents (account_id, (hashtextextended(session_id, 0)));
    drop index consents_account_session_idx;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index consents_account_session_idx on consents (account_id, session_id, created_at, id);
    drop index consents_account_session_hash_idx;
  `.execute(db);
}
