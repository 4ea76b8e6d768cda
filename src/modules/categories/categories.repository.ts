import { newId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import { listPage } from '../../db/list-page.ts';
import { deleteOwnedRow, findOwnedRow, insertOwnedRow, ownedValueTaken, updateOwnedRow } from '../../db/owned-rows.ts';
import { hasRow } from '../../db/row-count.ts';
import type { CategoryRow } from '../../db/schema.ts';
import type { Sort, Window } from '../../http/pagination.ts';
import type { CATEGORY_SORTS, CategoryFields } from './categories.schema.ts';

export type CategorySort = Sort<(typeof CATEGORY_SORTS)[number]>;

export async function listCategories(db: Executor, accountId: string, sort: CategorySort, window: Window) {
  const scoped = db.selectFrom('categories').where('account_id', '=', accountId);
  return listPage(scoped, (q) => q.selectAll().orderBy(sort.sort, sort.order).orderBy('id', sort.order), window);
}

export async function findCategory(db: Executor, accountId: string, id: string): Promise<CategoryRow | undefined> {
  return findOwnedRow(db, 'categories', ['account_id', accountId], id);
}

export async function slugTaken(db: Executor, accountId: string, slug: string, exceptId?: string): Promise<boolean> {
  return ownedValueTaken(db, 'categories', ['account_id', accountId], 'slug', slug, exceptId);
}

/** A category's columns as the service writes them: its texts in other languages as JSON. */
export type CategoryValues = Omit<CategoryFields, 'translations'> & { translations?: string };
export type NewCategory = Required<Pick<CategoryValues, 'name' | 'slug' | 'default_language'>> & CategoryValues;

/** A category of the slug `marketing` is one of sale or sharing unless it is said otherwise. */
const withDefaults = (fields: NewCategory) => ({ ...fields, sale_or_sharing: fields.sale_or_sharing ?? fields.slug === 'marketing' });

export async function insertCategory(db: Executor, accountId: string, fields: NewCategory): Promise<CategoryRow> {
  return insertOwnedRow(db, 'categories', ['account_id', accountId], withDefaults(fields));
}

export async function updateCategory(db: Executor, accountId: string, id: string, fields: CategoryValues) {
  return updateOwnedRow(db, 'categories', ['account_id', accountId], id, fields);
}

export async function categoryHoldsStorageItems(db: Executor, accountId: string, id: string): Promise<boolean> {
  return hasRow(db.selectFrom('storage_items').select('id').where('account_id', '=', accountId).where('category_id', '=', id));
}

export async function deleteCategory(db: Executor, accountId: string, id: string): Promise<boolean> {
  return deleteOwnedRow(db, 'categories', ['account_id', accountId], id);
}

/** Every category of the account, oldest first. */
export async function allCategories(db: Executor, accountId: string): Promise<CategoryRow[]> {
  return db.selectFrom('categories').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
}

export async function findCategoryBySlug(db: Executor, accountId: string, slug: string): Promise<CategoryRow | undefined> {
  return db.selectFrom('categories').selectAll().where('account_id', '=', accountId).where('slug', '=', slug).executeTakeFirst();
}

/** Inserts the category unless its slug is taken in the account (by another instance, at the same moment). */
export async function insertCategoryUnlessTaken(db: Executor, accountId: string, fields: NewCategory): Promise<CategoryRow | undefined> {
  return db
    .insertInto('categories')
    .values({ id: newId(), account_id: accountId, ...withDefaults(fields) })
    .onConflict((oc) => oc.columns(['account_id', 'slug']).doNothing())
    .returningAll()
    .executeTakeFirst();
}
