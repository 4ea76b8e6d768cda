import { newId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import { countRows } from '../../db/row-count.ts';
import type { AccountUserRow } from '../../db/schema.ts';
import type { Sort, Window } from '../../http/pagination.ts';

/** A membership with the user and the account it joins: everything the response shows. */
function withPeople(db: Executor) {
  return db
    .selectFrom('account_users')
    .innerJoin('users', 'users.id', 'account_users.user_id')
    .innerJoin('accounts', 'accounts.id', 'account_users.account_id')
    .select([
      'account_users.id',
      'account_users.admin',
      'account_users.created_at',
      'account_users.updated_at',
      'users.id as user_id',
      'users.name as user_name',
      'users.email as user_email',
      'accounts.id as account_id',
      'accounts.name as account_name',
    ]);
}

export type AccountUserView = NonNullable<Awaited<ReturnType<ReturnType<typeof withPeople>['executeTakeFirst']>>>;

export async function listAccountUsers(db: Executor, accountId: string, window: Window, sort: Sort<'created_at'>) {
  const [rows, count] = await Promise.all([
    withPeople(db)
      .where('account_users.account_id', '=', accountId)
      .orderBy(`account_users.${sort.sort}`, sort.order)
      .orderBy('account_users.id', sort.order)
      .limit(window.limit)
      .offset(window.offset)
      .execute(),
    countRows(db.selectFrom('account_users').where('account_id', '=', accountId)),
  ]);
  return { rows, count };
}

export async function findAccountUser(db: Executor, accountId: string, id: string): Promise<AccountUserView | undefined> {
  return withPeople(db).where('account_users.account_id', '=', accountId).where('account_users.id', '=', id).executeTakeFirst();
}

/**
 * Locks the account row for the rest of the transaction, so that membership changes of one account
 * run one after the other and "the last admin" is never decided on a stale count. Returns its owner.
 */
export async function lockAccount(db: Executor, accountId: string): Promise<{ owner_id: string | null } | undefined> {
  return db.selectFrom('accounts').select('owner_id').where('id', '=', accountId).forUpdate().executeTakeFirst();
}

export async function countAdmins(db: Executor, accountId: string): Promise<number> {
  return countRows(db.selectFrom('account_users').where('account_id', '=', accountId).where('admin', '=', true));
}

export async function setAdmin(db: Executor, accountId: string, id: string, admin: boolean): Promise<void> {
  await db
    .updateTable('account_users')
    .set({ admin, updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** Removes a membership; returns the user who left, whose cached memberships must be forgotten. */
export async function deleteAccountUser(db: Executor, accountId: string, id: string): Promise<string | undefined> {
  const row = await db.deleteFrom('account_users').where('account_id', '=', accountId).where('id', '=', id).returning('user_id').executeTakeFirst();
  return row?.user_id;
}

export async function insertMembership(db: Executor, accountId: string, userId: string, admin: boolean): Promise<AccountUserRow> {
  return db
    .insertInto('account_users')
    .values({ id: newId(), account_id: accountId, user_id: userId, admin })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findMembership(db: Executor, accountId: string, userId: string): Promise<AccountUserRow | undefined> {
  return db
    .selectFrom('account_users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export async function memberIdsOf(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom('account_users').select('user_id').where('account_id', '=', accountId).execute();
  return rows.map((row) => row.user_id);
}

/** The account's admins, with the account's name: whom the service emails about the account (webhooks failing, scan alerts). */
export async function adminsOf(db: Executor, accountId: string, limit = 50) {
  return withPeople(db).where('account_users.account_id', '=', accountId).where('account_users.admin', '=', true)
    .orderBy('account_users.created_at').limit(limit).execute();
}
