import type { Insertable, Updateable } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import { listPage } from '../../db/list-page.ts';
import { deleteOwnedRow, updateOwnedRow } from '../../db/owned-rows.ts';
import type { ApprovedByType, StorageItemRow, StorageItemsTable } from '../../db/schema.ts';
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
  if (filters.created_by !== undefined) query = query.where('created_by', '=', filters.created_by);
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
  return listPage(scoped, (q) => q.selectAll().orderBy(sort.sort, sort.order).orderBy('id', sort.order), window);
}

/** `lock`: the row stays locked until the transaction ends. */
export async function findStorageItem(db: Executor, accountId: string, id: string, lock = false): Promise<StorageItemRow | undefined> {
  const query = db.selectFrom('storage_items').selectAll().where('account_id', '=', accountId).where('id', '=', id);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function insertStorageItem(db: Executor, item: NewStorageItem): Promise<StorageItemRow> {
  return db.insertInto('storage_items').values(item).returningAll().executeTakeFirstOrThrow();
}

export async function updateStorageItem(db: Executor, accountId: string, id: string, changes: StorageItemChanges) {
  return updateOwnedRow(db, 'storage_items', ['account_id', accountId], id, changes);
}

export async function deleteStorageItem(db: Executor, accountId: string, id: string): Promise<boolean> {
  return deleteOwnedRow(db, 'storage_items', ['account_id', accountId], id);
}

/** The account's items a scan may meet again: those of the names found, and every wildcard. */
export async function listScanCandidates(db: Executor, accountId: string, names: string[]): Promise<StorageItemRow[]> {
  return db
    .selectFrom('storage_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('is_wildcard_cookie', '=', true), ...(names.length > 0 ? [eb('name', 'in', names)] : [])]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The account's items made before `since` that no scan has seen since (among `ids`, when given):
 * what a scan that started then did not find, and no later one either.
 */
export async function listUnseenItems(db: Executor, accountId: string, since: Date, ids?: string[]): Promise<StorageItemRow[]> {
  if (ids?.length === 0) return [];
  return db
    .selectFrom('storage_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('created_at', '<', since)
    .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', since)]))
    .$if(ids !== undefined, (query) => query.where('id', 'in', ids!))
    .orderBy('name')
    .orderBy('id')
    .execute();
}

export async function deleteStorageItems(db: Executor, accountId: string, ids: string[]): Promise<StorageItemRow[]> {
  if (ids.length === 0) return [];
  return db.deleteFrom('storage_items').where('account_id', '=', accountId).where('id', 'in', ids).returningAll().execute();
}

/** A scan saw these items: only when they were last seen changes, which is no edit (`updated_at` stays). */
export async function markItemsSeen(db: Executor, accountId: string, ids: string[], seenAt: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('storage_items').set({ last_seen_at: seenAt }).where('account_id', '=', accountId).where('id', 'in', ids).execute();
}

/** The category of each of these items (null for one without), with whether visitors may refuse it. */
export async function listItemCategories(db: Executor, accountId: string, itemIds: string[]) {
  if (itemIds.length === 0) return [];
  return db
    .selectFrom('storage_items')
    .leftJoin('categories', 'categories.id', 'storage_items.category_id')
    .select(['storage_items.id as item_id', 'categories.id as category_id', 'categories.name as category', 'categories.required'])
    .where('storage_items.account_id', '=', accountId)
    .where('storage_items.id', 'in', itemIds)
    .execute();
}

/**
 * Hands the account's uncategorised drafts (of `ids`, when given) to the AI: they become `processing`.
 * Items a person has moved on (`in_review`, `finalised`) are theirs and left alone.
 */
export async function markUncategorisedProcessing(db: Executor, accountId: string, ids?: string[]): Promise<StorageItemRow[]> {
  let query = db
    .updateTable('storage_items')
    .set({ status: 'processing' })
    .where('account_id', '=', accountId)
    .where('status', '=', 'draft')
    .where('category_id', 'is', null);
  if (ids) query = query.where('id', 'in', ids);
  return query.returningAll().execute();
}

/**
 * Finalises the account's items of `ids` that have a category and wait for a person (`draft` or
 * `in_review`); answers the ids finalised. Finalised items keep who approved them; `processing`
 * ones are the AI's until it lets go.
 */
export async function finaliseItems(db: Executor, accountId: string, ids: string[], approver: ApprovedByType): Promise<string[]> {
  const rows = await db
    .updateTable('storage_items')
    .set({ status: 'finalised', approved_by_type: approver, updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('status', 'in', ['draft', 'in_review'])
    .where('category_id', 'is not', null)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Hands an item to the AI: `processing` until the worker has applied what it found. */
export async function markProcessing(db: Executor, id: string): Promise<StorageItemRow> {
  return db.updateTable('storage_items').set({ status: 'processing' }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Writes exactly `changes` (no `updated_at` unless given): what the AI applied to an item. */
export async function writeItemChanges(db: Executor, id: string, changes: StorageItemChanges): Promise<void> {
  await db.updateTable('storage_items').set(changes).where('id', '=', id).execute();
}

/** Items left `processing` (the AI's durable queue), oldest first. */
export async function listProcessingItems(db: Executor, limit: number): Promise<Array<{ id: string; account_id: string }>> {
  return db
    .selectFrom('storage_items')
    .select(['id', 'account_id'])
    .where('status', '=', 'processing')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}
