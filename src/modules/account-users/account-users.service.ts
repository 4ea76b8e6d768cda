import type { Kysely } from 'kysely';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import type { Database } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../../http/app-errors.ts';
import {
  countAdmins,
  deleteAccountUser,
  findAccountUser,
  lockAccount,
  setAdmin,
  type AccountUserView,
} from './account-users.repository.ts';

export const OWNER_STAYS_ADMIN = 'Account owner must remain an admin';
export const OWNER_CANNOT_LEAVE = "Account owner can't be removed";
export const LAST_ADMIN = 'Account must keep at least one admin';

/**
 * Runs a membership change under the account's lock, after the rules every change obeys:
 * the owner stays an admin member, and the account keeps at least one admin.
 */
async function underRules<T>(
  db: Kysely<Database>,
  accountId: string,
  id: string,
  change: { removes: boolean; demotes: boolean },
  apply: (trx: Kysely<Database>, membership: AccountUserView) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const account = await lockAccount(trx, accountId);
    const membership = account && (await findAccountUser(trx, accountId, id));
    if (!account || !membership) throw new NotFoundError();
    const isOwner = account.owner_id === membership.user_id;
    if (isOwner && change.removes) throw new ValidationError(OWNER_CANNOT_LEAVE);
    if (isOwner && change.demotes) throw new ValidationError(OWNER_STAYS_ADMIN);
    if (membership.admin && (change.removes || change.demotes) && (await countAdmins(trx, accountId)) <= 1) {
      throw new ValidationError(LAST_ADMIN);
    }
    return apply(trx, membership);
  });
}

export async function changeRoles(db: Kysely<Database>, accountId: string, id: string, admin: boolean): Promise<AccountUserView> {
  return underRules(db, accountId, id, { removes: false, demotes: !admin }, async (trx, before) => {
    await setAdmin(trx, accountId, id, admin);
    const after = (await findAccountUser(trx, accountId, id))!;
    await recordAudit(trx, { accountId, resourceType: 'account_user', resourceId: id, action: 'update', before, after });
    return after;
  });
}

/** Returns the id of the user who left, whose cached memberships the caller must forget. */
export async function removeAccountUser(db: Kysely<Database>, accountId: string, id: string): Promise<string | undefined> {
  return underRules(db, accountId, id, { removes: true, demotes: false }, async (trx, before) => {
    const left = await deleteAccountUser(trx, accountId, id);
    await recordAudit(trx, { accountId, resourceType: 'account_user', resourceId: id, action: 'delete', before });
    return left;
  });
}

/** What other modules use of the memberships. */
export { adminsOf, findAccountUser, findMembership, insertMembership, memberIdsOf } from './account-users.repository.ts';
