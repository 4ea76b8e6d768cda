import { newId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import type { GroupRow } from '../../db/schema.ts';
import { listPage } from '../../db/list-page.ts';
import type { Window } from '../../http/pagination.ts';
import type { GroupFields } from './groups.schema.ts';

export async function listGroups(db: Executor, partnerId: string, filters: { external_id?: string }, window: Window) {
  let scoped = db.selectFrom('groups').where('partner_id', '=', partnerId);
  if (filters.external_id !== undefined) scoped = scoped.where('external_id', '=', filters.external_id);
  return listPage(scoped, (q) => q.selectAll().orderBy('created_at').orderBy('id'), window);
}

export async function findGroup(db: Executor, partnerId: string, id: string): Promise<GroupRow | undefined> {
  return db.selectFrom('groups').selectAll().where('partner_id', '=', partnerId).where('id', '=', id).executeTakeFirst();
}

export async function externalIdTaken(db: Executor, partnerId: string, externalId: string, exceptId?: string) {
  let query = db.selectFrom('groups').select('id').where('partner_id', '=', partnerId).where('external_id', '=', externalId);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function insertGroup(db: Executor, partnerId: string, fields: GroupFields & { name: string }) {
  return db
    .insertInto('groups')
    .values({ id: newId(), partner_id: partnerId, ...fields })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateGroup(db: Executor, partnerId: string, id: string, fields: GroupFields) {
  return db
    .updateTable('groups')
    .set({ ...fields, updated_at: new Date() })
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function groupHasAccounts(db: Executor, id: string): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').where('group_id', '=', id).limit(1).executeTakeFirst()) !== undefined;
}

export async function deleteGroup(db: Executor, partnerId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('groups').where('partner_id', '=', partnerId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
