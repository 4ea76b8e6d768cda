import type { Executor } from '../../db/kysely.ts';
import { listPage } from '../../db/list-page.ts';
import { deleteOwnedRow, findOwnedRow, insertOwnedRow, ownedValueTaken, updateOwnedRow } from '../../db/owned-rows.ts';
import type { ServiceRow } from '../../db/schema.ts';
import type { Sort, Window } from '../../http/pagination.ts';
import type { SERVICE_SORTS, ServiceFields } from './vendor-services.schema.ts';

export type ServiceSort = Sort<(typeof SERVICE_SORTS)[number]>;
/** A service's columns as the service writes them: its texts in other languages as JSON. */
export type ServiceValues = Omit<ServiceFields, 'translations'> & { translations?: string };

export async function listServices(db: Executor, accountId: string, filters: { category_id?: string }, sort: ServiceSort, window: Window) {
  let scoped = db.selectFrom('services').where('account_id', '=', accountId);
  if (filters.category_id) scoped = scoped.where('category_id', '=', filters.category_id);
  return listPage(scoped, (q) => q.selectAll().orderBy(sort.sort, sort.order).orderBy('id', sort.order), window);
}

export async function findService(db: Executor, accountId: string, id: string): Promise<ServiceRow | undefined> {
  return findOwnedRow(db, 'services', ['account_id', accountId], id);
}

export async function serviceSlugTaken(db: Executor, accountId: string, slug: string, exceptId?: string): Promise<boolean> {
  return ownedValueTaken(db, 'services', ['account_id', accountId], 'slug', slug, exceptId);
}

export async function insertService(db: Executor, accountId: string, fields: ServiceValues & { name: string; slug: string }): Promise<ServiceRow> {
  return insertOwnedRow(db, 'services', ['account_id', accountId], fields);
}

export async function updateService(db: Executor, accountId: string, id: string, fields: ServiceValues): Promise<ServiceRow | undefined> {
  return updateOwnedRow(db, 'services', ['account_id', accountId], id, fields);
}

export async function deleteService(db: Executor, accountId: string, id: string): Promise<boolean> {
  return deleteOwnedRow(db, 'services', ['account_id', accountId], id);
}
