import { sql, type Kysely } from 'kysely';

/**
 * The session lookup index as a B-tree of the session id's first 8 characters, a 32-bit hash of the
 * whole id and the account id, instead of a hash index of the account and the session. A hash
 * index spreads its inserts over every one of its pages, and after each checkpoint PostgreSQL logs
 * a page whole the first time it changes: at 10,000,000 consents those images were 1,676 of the
 * 2,292 WAL bytes per recorded consent. The banner's session ids begin with their time in 8
 * characters, so with them first every account's new sessions go to the index's right edge, whose
 * pages split full (90%). The hash keeps a lookup exact among ids that share their first 8
 * characters (sessions begun in the same millisecond, or an integration's own ids such as
 * `session-…`); it is the function the hash index used (`hashtext`). The entry is 40 bytes; the
 * row's full session id is checked on read (`ofSession`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index consents_session_prefix_idx on consents (left(session_id, 8), hashtext(session_id), account_id);
    drop index consents_account_session_idx;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index consents_account_session_idx on consents using hash ((account_id::text || session_id));
    drop index consents_session_prefix_idx;
  `.execute(db);
}
