import type { Insertable, Updateable } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import type { StorageItemRow, StorageItemsTable } from '../../db/schema.ts';
import type { Sort, Window } from '../../http/pagination.ts';
import type { STORAGE_ITEM_SORTS, StorageItemFilters } from './storage-items.schema.ts';

export type StorageItemSort = Sort<(typeof STORAGE_ITEM_SORTS)[number]>;
export type NewStorageItem = Insertable<StorageItemsTable>;
export type StorageItemChanges = Omit<Updateable<StorageItemsTable>, 'id' | 'account_id' | 'created_by'>;

function filtered(db: Executor, accountId: string, filters: StorageItemFilters) {
  let query = db.selectFrom('storage_items').where('account_id', '=', accountId);
  if (filters.category_id !== undefined) query = query.where('category_id', '=', filters.category_id);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.storage_type !== undefined) query = query.where('storage_type', '=', filters.storage_type);
  if (filters.uncategorised === true) query = query.where('category_id', 'is', null);
  return query;
}

export async function listStorageItems(
  db: Executor,
  accountId: string,
  filters: StorageItemFilters,
  sort: StorageItemSort,
  window: Window,
): Promise<{ rows: StorageItemRow[]; count: number }> {
  const scoped = filtered(db, accountId, filters);
  const [rows, total] = await Promise.all([
    scoped
      .selectAll()
      .orderBy(sort.sort, sort.order)
      .orderBy('id', sort.order)
      .limit(window.limit)
      .offset(window.offset)
      .execute(),
    scoped.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

export async function findStorageItem(db: Executor, accountId: string, id: string): Promise<StorageItemRow | undefined> {
  return db.selectFrom('storage_items').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export async function insertStorageItem(db: Executor, item: NewStorageItem): Promise<StorageItemRow> {
  return db.insertInto('storage_items').values(item).returningAll().executeTakeFirstOrThrow();
}

export async function updateStorageItem(db: Executor, accountId: string, id: string, changes: StorageItemChanges) {
  return db
    .updateTable('storage_items')
    .set({ ...changes, updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteStorageItem(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('storage_items').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
