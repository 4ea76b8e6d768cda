import type { Executor } from '../db/kysely.ts';
import type { StorageItemRow } from '../db/schema.ts';
import { aiWorksOnItems, findAiFeatures } from './settings.ts';

/** A draft that lacks a category or a description: what the AI is for. */
export function needsAi(item: Pick<StorageItemRow, 'status' | 'category_id' | 'description'>): boolean {
  return item.status === 'draft' && (item.category_id === null || item.description === '');
}

/**
 * Called inside the transaction that wrote a storage item, when the item is new or its name,
 * domain or storage type changed (what the AI's knowledge rests on; an edit of anything else,
 * clearing a field included, is a person's decision the AI leaves alone). When the account lets
 * the AI work and the item needs it, the item becomes `processing` in the same transaction, so a
 * crash can never lose it: the worker picks up every `processing` item when it starts. The
 * caller hands the returned row to `AiWorker.submit` once the transaction has committed.
 */
export async function takeForAi(trx: Executor, row: StorageItemRow): Promise<StorageItemRow> {
  if (!needsAi(row) || !aiWorksOnItems(await findAiFeatures(trx, row.account_id))) return row;
  const taken = await trx
    .updateTable('storage_items')
    .set({ status: 'processing' })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return taken;
}
