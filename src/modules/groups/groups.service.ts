import { isUniqueViolation, type Executor } from '../../db/kysely.ts';
import type { GroupRow } from '../../db/schema.ts';
import { found, NotFoundError, ValidationError } from '../../http/app-errors.ts';
import { Problems } from '../../http/validation.ts';
import { deleteGroup, externalIdTaken, findGroup, groupHasAccounts, insertGroup, updateGroup } from './groups.repository.ts';
import type { GroupFields } from './groups.schema.ts';

export const EXTERNAL_ID_TAKEN = 'External id has already been taken';
export const GROUP_IN_USE = 'Group still holds accounts; move or delete them first';

/** Trims the texts, turns a blank external id into none, and checks it is free for the partner. */
async function cleanFields(db: Executor, partnerId: string, fields: GroupFields, exceptId?: string): Promise<GroupFields> {
  const problems = new Problems();
  const out: GroupFields = { ...fields };
  if (fields.name !== undefined) out.name = problems.required('name', fields.name ?? undefined);
  if (fields.external_id !== undefined) {
    out.external_id = fields.external_id?.trim() || null;
    if (out.external_id && (await externalIdTaken(db, partnerId, out.external_id, exceptId))) {
      problems.add('external_id', 'has already been taken');
    }
  }
  problems.throwIfAny();
  return out;
}

const rethrowTaken = (error: unknown): never => {
  if (isUniqueViolation(error)) throw new ValidationError(EXTERNAL_ID_TAKEN);
  throw error;
};

export async function createGroup(db: Executor, partnerId: string, sent: GroupFields): Promise<GroupRow> {
  const fields = await cleanFields(db, partnerId, sent);
  return insertGroup(db, partnerId, { ...fields, name: fields.name! }).catch(rethrowTaken);
}

/** Only the fields sent change. */
export async function changeGroup(db: Executor, partnerId: string, id: string, sent: GroupFields): Promise<GroupRow> {
  if (!(await findGroup(db, partnerId, id))) throw new NotFoundError();
  const fields = await cleanFields(db, partnerId, sent, id);
  return found(await updateGroup(db, partnerId, id, fields).catch(rethrowTaken));
}

/** Deletes a group that holds no accounts. */
export async function removeGroup(db: Executor, partnerId: string, id: string): Promise<void> {
  if (!(await findGroup(db, partnerId, id))) throw new NotFoundError();
  if (await groupHasAccounts(db, id)) throw new ValidationError(GROUP_IN_USE);
  if (!(await deleteGroup(db, partnerId, id))) throw new NotFoundError();
}
