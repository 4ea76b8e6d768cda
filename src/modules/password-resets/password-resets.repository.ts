import { newId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import type { PasswordResetRow } from '../../db/schema.ts';

/** A new link for the user; the user's earlier unused links stop working (only the latest one counts). */
export async function replaceResetLink(db: Executor, userId: string, tokenHash: string, expiresAt: Date): Promise<void> {
  await db.deleteFrom('password_resets').where('user_id', '=', userId).where('used_at', 'is', null).execute();
  await db.insertInto('password_resets').values({ id: newId(), user_id: userId, token_hash: tokenHash, expires_at: expiresAt }).execute();
}

export async function findResetLink(db: Executor, tokenHash: string): Promise<PasswordResetRow | undefined> {
  return db.selectFrom('password_resets').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/**
 * Marks the link used if it still can be: one statement, so that of two requests racing with the
 * same link exactly one gets the user id back.
 */
export async function consumeResetLink(db: Executor, tokenHash: string, now: Date): Promise<string | undefined> {
  const row = await db
    .updateTable('password_resets')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}
