import { sql } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import { listPage, type Window } from '../../db/list-page.ts';
import type { Sort } from '../../http/pagination.ts';

/** Stores a snapshot unless the account already holds one of that hash; answers whether it was new. */
export async function insertSnapshot(db: Executor, accountId: string, hash: string, content: string): Promise<boolean> {
  const inserted = await db.insertInto('notice_snapshots').values({ account_id: accountId, hash, content })
    .onConflict((conflict) => conflict.columns(['account_id', 'hash']).doNothing())
    .returning(sql.lit(1).as('one')).executeTakeFirst();
  return inserted !== undefined;
}

/** Whether the account holds a snapshot of this hash. */
export async function snapshotExists(db: Executor, accountId: string, hash: string): Promise<boolean> {
  const row = await db.selectFrom('notice_snapshots').select(sql.lit(1).as('one'))
    .where('account_id', '=', accountId).where('hash', '=', hash).executeTakeFirst();
  return row !== undefined;
}

/** A page of the account's snapshots (without their content), with their sizes. */
export async function listSnapshots(db: Executor, accountId: string, sort: Sort<'created_at'>, window: Window) {
  return listPage(db.selectFrom('notice_snapshots').where('account_id', '=', accountId), (q) => q
    .select(['hash', 'created_at', sql<number>`octet_length(content)`.as('bytes')])
    .orderBy('created_at', sort.order).orderBy('hash', sort.order), window);
}

/** One snapshot of the account, with its content. */
export async function findSnapshot(db: Executor, accountId: string, hash: string) {
  return db.selectFrom('notice_snapshots').select(['hash', 'created_at', 'content'])
    .where('account_id', '=', accountId).where('hash', '=', hash).executeTakeFirst();
}
