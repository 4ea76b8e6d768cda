import type { ExpressionBuilder } from 'kysely';
import type { ApiTokenRow, Database, NewApiToken } from '../../db/schema.ts';
import type { Executor } from '../../db/kysely.ts';
import { newId } from '../../db/ids.ts';
import { listPage } from '../../db/list-page.ts';
import { countRows } from '../../db/row-count.ts';

export async function insertToken(db: Executor, token: Omit<NewApiToken, 'id'>): Promise<ApiTokenRow> {
  return db.insertInto('api_tokens').values({ id: newId(), ...token }).returningAll().executeTakeFirstOrThrow();
}

export async function findTokenByHash(db: Executor, hash: string): Promise<ApiTokenRow | undefined> {
  return db.selectFrom('api_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
}

/** The tokens a caller holds: its partner's, its user's, or (an account token) itself. */
export interface TokenOwner {
  partnerId: string | null;
  userId: string | null;
  tokenId: string;
}

function ownedBy(owner: TokenOwner) {
  return (eb: ExpressionBuilder<Database, 'api_tokens'>) =>
    owner.partnerId
      ? eb('partner_id', '=', owner.partnerId)
      : owner.userId
        ? eb('user_id', '=', owner.userId)
        : eb('id', '=', owner.tokenId);
}

/** A token without an expiry, or whose expiry is still ahead. */
const unexpired = (eb: ExpressionBuilder<Database, 'api_tokens'>) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', new Date())]);

/** The owner's live tokens: neither revoked nor expired. */
export async function listTokens(
  db: Executor,
  owner: TokenOwner,
  page: { limit: number; offset: number; order: 'asc' | 'desc' },
): Promise<{ rows: ApiTokenRow[]; count: number }> {
  const base = db.selectFrom('api_tokens').where(ownedBy(owner)).where('revoked_at', 'is', null).where(unexpired);
  return listPage(base, (q) => q.selectAll().orderBy('created_at', page.order).orderBy('id', page.order), page);
}

/** Revokes one of the owner's live tokens; returns its hash so that caches forget it. */
export async function revokeToken(db: Executor, owner: TokenOwner, id: string): Promise<ApiTokenRow | undefined> {
  return db
    .updateTable('api_tokens')
    .set({ revoked_at: new Date() })
    .where('id', '=', id)
    .where(ownedBy(owner))
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function revokeTokenById(db: Executor, id: string): Promise<string | undefined> {
  const row = await db
    .updateTable('api_tokens')
    .set({ revoked_at: new Date() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returning('token_hash')
    .executeTakeFirst();
  return row?.token_hash;
}

/** Revokes a user's session tokens, all of them (a password reset) or all but `keepId`; returns their hashes. */
export async function revokeUserSessions(db: Executor, userId: string, keepId?: string): Promise<string[]> {
  let query = db
    .updateTable('api_tokens')
    .set({ revoked_at: new Date() })
    .where('user_id', '=', userId)
    .where('token_type', '=', 'user')
    .where('kind', '=', 'session')
    .where('revoked_at', 'is', null);
  if (keepId) query = query.where('id', '!=', keepId);
  const rows = await query.returning('token_hash').execute();
  return rows.map((row) => row.token_hash);
}

/** Hashes of an account's tokens, for caches to forget when the account goes. */
export async function accountTokenHashes(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom('api_tokens').select('token_hash').where('account_id', '=', accountId).execute();
  return rows.map((row) => row.token_hash);
}

/** Named tokens (not sessions) of a user or partner that still work: what the cap counts. */
export async function countLiveNamedTokens(db: Executor, owner: { partnerId: string | null; userId: string | null }): Promise<number> {
  return countRows(db
    .selectFrom('api_tokens')
    .where(owner.userId ? 'user_id' : 'partner_id', '=', (owner.userId ?? owner.partnerId)!)
    .where('kind', '=', 'api')
    .where('revoked_at', 'is', null)
    .where(unexpired));
}
