import type { Executor } from '../../db/kysely.ts';
import type { GroupRow } from '../../db/schema.ts';
import { listPage } from '../../db/list-page.ts';
import { hasRow } from '../../db/row-count.ts';
import { deleteOwnedRow, findOwnedRow, insertOwnedRow, ownedValueTaken, updateOwnedRow } from '../../db/owned-rows.ts';
import type { Window } from '../../http/pagination.ts';
import type { GroupFields } from './groups.schema.ts';

export async function listGroups(db: Executor, partnerId: string, filters: { external_id?: string }, window: Window) {
  let scoped = db.selectFrom('groups').where('partner_id', '=', partnerId);
  if (filters.external_id !== undefined) scoped = scoped.where('external_id', '=', filters.external_id);
  return listPage(scoped, (q) => q.selectAll().orderBy('created_at').orderBy('id'), window);
}

export async function findGroup(db: Executor, partnerId: string, id: string): Promise<GroupRow | undefined> {
  return findOwnedRow(db, 'groups', ['partner_id', partnerId], id);
}

export async function externalIdTaken(db: Executor, partnerId: string, externalId: string, exceptId?: string) {
  return ownedValueTaken(db, 'groups', ['partner_id', partnerId], 'external_id', externalId, exceptId);
}

export async function insertGroup(db: Executor, partnerId: string, fields: GroupFields & { name: string }) {
  return insertOwnedRow(db, 'groups', ['partner_id', partnerId], fields);
}

export async function updateGroup(db: Executor, partnerId: string, id: string, fields: GroupFields) {
  return updateOwnedRow(db, 'groups', ['partner_id', partnerId], id, fields);
}

export async function groupHasAccounts(db: Executor, id: string): Promise<boolean> {
  return hasRow(db.selectFrom('accounts').select('id').where('group_id', '=', id));
}

export async function deleteGroup(db: Executor, partnerId: string, id: string): Promise<boolean> {
  return deleteOwnedRow(db, 'groups', ['partner_id', partnerId], id);
}
