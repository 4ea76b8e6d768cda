import { sql } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import type { ConsentRow } from '../../db/schema.ts';
import { GENESIS } from './consent-chain.ts';
import { filtered } from './consents.repository.ts';
import type { ConsentFilters } from './consents.schema.ts';

export interface ChainPoint {
  seq: number;
  hash: string;
}

/** Where verification starts: the last consent removed by retention (or the chain's start). */
export async function findAnchor(db: Executor, accountId: string): Promise<ChainPoint> {
  const row = await db.selectFrom('consent_chain_anchors').select(['seq', 'hash']).where('account_id', '=', accountId).executeTakeFirst();
  return row ? { seq: Number(row.seq), hash: row.hash } : { seq: 0, hash: GENESIS };
}

/** The chain's last link as the writers last stored it. */
export async function findHead(db: Executor, accountId: string): Promise<ChainPoint> {
  const row = await db.selectFrom('consent_chain_heads').select(['seq', 'hash']).where('account_id', '=', accountId).executeTakeFirst();
  return row ? { seq: Number(row.seq), hash: row.hash } : { seq: 0, hash: GENESIS };
}

/** A consent written around the writer (outside the chain), if there is one. */
export async function findUnchained(db: Executor, accountId: string): Promise<string | undefined> {
  const row = await db.selectFrom('consents').select('id').where('account_id', '=', accountId).where('chain_seq', '<', 0)
    .orderBy('chain_seq', 'desc').limit(1).executeTakeFirst();
  return row?.id;
}

/** The next `limit` consents of the chain after `afterSeq`, in chain order (keyset, on the chain's index). */
export async function chainPage(db: Executor, accountId: string, afterSeq: number, limit: number): Promise<ConsentRow[]> {
  return db.selectFrom('consents').selectAll().where('account_id', '=', accountId).where('chain_seq', '>', afterSeq)
    .orderBy('chain_seq').limit(limit).execute();
}

/** The next `limit` consents matching the list's filters after (createdAt, id), oldest first. */
export async function exportPage(
  db: Executor,
  accountId: string,
  filters: ConsentFilters,
  after: { created_at: Date; id: string } | undefined,
  limit: number,
): Promise<ConsentRow[]> {
  let query = filtered(db, accountId, filters).selectAll();
  if (after) {
    query = query.where((eb) => eb.or([
      eb('created_at', '>', after.created_at),
      eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)]),
    ]));
  }
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** A visitor's own consent: the id and the session both match. */
export async function findVisitorConsent(db: Executor, accountId: string, id: string, sessionId: string): Promise<ConsentRow | undefined> {
  return db.selectFrom('consents').selectAll().where('account_id', '=', accountId).where('id', '=', id)
    .where('session_id', '=', sessionId).where('erased_at', 'is', null).executeTakeFirst();
}

/** The daily checkpoints (each day's last link) between two UTC days, inclusive. */
export async function listCheckpoints(db: Executor, accountId: string, from: string, to: string) {
  return db.selectFrom('consent_daily_stats').select(['day', 'head_seq', 'head_id', 'head_hash', 'consents'])
    .where('account_id', '=', accountId).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`).where('head_hash', 'is not', null)
    .orderBy('day').execute();
}

/**
 * Clears the personal fields of a subject's consents (the row, its hashes and its choice stay) and
 * forgets the subject's sessions as visitors. Answers how many consents were erased.
 */
export async function eraseSubject(db: Executor, accountId: string, field: 'user_id' | 'session_id', value: string): Promise<number> {
  const result = await sql<{ erased: number }>`with target as (
      select id, session_id from consents where account_id = ${accountId} and ${sql.ref(field)} = ${value} and erased_at is null for update
    ), erased as (
      update consents c set session_id = '', user_id = null, ip_address = null, user_agent = null, url = null,
        personal_salt = null, erased_at = now()
      from target where c.id = target.id
      returning c.id
    ), forgotten as (
      delete from account_visitors where account_id = ${accountId} and session_id in (select session_id from target)
    )
    select count(*)::int as erased from erased`.execute(db);
  return result.rows[0].erased;
}

export async function insertErasure(
  db: Executor,
  entry: { id: string; account_id: string; subject_type: 'user_id' | 'session_id'; subject_hash: string; consents: number; erased_by_type: string; erased_by_id: string | null },
) {
  return db.insertInto('consent_erasures').values(entry).returningAll().executeTakeFirstOrThrow();
}

/** Accounts holding consents older than their retention, with that retention. */
export async function accountsPastRetention(db: Executor): Promise<{ id: string; consent_retention_days: number }[]> {
  return db.selectFrom('accounts').select(['id', 'consent_retention_days'])
    .where(({ exists, selectFrom }) => exists(selectFrom('consents').select(sql.lit(1).as('one'))
      .whereRef('consents.account_id', '=', 'accounts.id')
      .where('consents.created_at', '<', sql<Date>`now() - make_interval(days => accounts.consent_retention_days)`)))
    .execute();
}

/**
 * Removes, in one transaction the caller owns, the oldest consents of the chain that are older than
 * `cutoff` (at most `limit`, stopping at the first younger one), moves the anchor to the last one
 * removed and lowers the account's counter. Null when another instance holds the account.
 */
export async function removeOldest(db: Executor, accountId: string, cutoff: Date, limit: number): Promise<number | null> {
  const lock = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtext(${`consentry:retention:${accountId}`})) as locked`.execute(db);
  if (!lock.rows[0].locked) return null;
  const oldest = await db.selectFrom('consents').select(['chain_seq', 'hash', 'created_at']).where('account_id', '=', accountId)
    .where('chain_seq', '>', 0).orderBy('chain_seq').limit(limit).execute();
  const expired = oldest.findIndex((row) => row.created_at >= cutoff);
  const removed = expired === -1 ? oldest : oldest.slice(0, expired);
  if (removed.length === 0) return 0;
  const last = removed.at(-1)!;
  await db.deleteFrom('consents').where('account_id', '=', accountId).where('chain_seq', '>', 0)
    .where('chain_seq', '<=', last.chain_seq).execute();
  if (last.hash !== null) {
    // Consents older than the chain (no hash) leave the anchor where the chain starts.
    await db.insertInto('consent_chain_anchors').values({ account_id: accountId, seq: last.chain_seq, hash: last.hash, updated_at: new Date() })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ seq: last.chain_seq, hash: last.hash!, updated_at: new Date() }))
      .execute();
  }
  await db.updateTable('account_consent_counts').set((eb) => ({ consents: eb('consents', '-', removed.length) }))
    .where('account_id', '=', accountId).execute();
  return removed.length;
}
