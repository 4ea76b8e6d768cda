import { sql, type ExpressionBuilder } from 'kysely';
import { newId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import type { AccountInvitationRow, Database, InvitationEmailStatus, InvitationRole } from '../../db/schema.ts';
import type { Sort, Window } from '../../http/pagination.ts';

/** Neither cancelled nor accepted (an expired one is still open: it can be resent). */
const isOpen = (eb: ExpressionBuilder<Database, 'account_invitations'>) =>
  eb.and([eb('account_invitations.deleted_at', 'is', null), eb('account_invitations.accepted_at', 'is', null)]);

/** An invitation with the name and email of the user who made it. */
function withInviter(db: Executor) {
  return db
    .selectFrom('account_invitations')
    .leftJoin('users as inviter', 'inviter.id', 'account_invitations.invited_by_id')
    .selectAll('account_invitations')
    .select(['inviter.name as inviter_name', 'inviter.email as inviter_email']);
}

export type InvitationView = NonNullable<Awaited<ReturnType<ReturnType<typeof withInviter>['executeTakeFirst']>>>;

export async function listInvitations(
  db: Executor,
  accountId: string,
  filters: { includeCancelled: boolean },
  window: Window,
  sort: Sort<'created_at'>,
): Promise<{ rows: InvitationView[]; count: number }> {
  let scoped = db.selectFrom('account_invitations').where('account_invitations.account_id', '=', accountId);
  if (!filters.includeCancelled) scoped = scoped.where(isOpen);
  let page = withInviter(db).where('account_invitations.account_id', '=', accountId);
  if (!filters.includeCancelled) page = page.where(isOpen);
  const [rows, total] = await Promise.all([
    page
      .orderBy(`account_invitations.${sort.sort}`, sort.order)
      .orderBy('account_invitations.id', sort.order)
      .limit(window.limit)
      .offset(window.offset)
      .execute(),
    scoped.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

export async function findInvitation(db: Executor, accountId: string, id: string): Promise<InvitationView | undefined> {
  return withInviter(db)
    .where('account_invitations.account_id', '=', accountId)
    .where('account_invitations.id', '=', id)
    .executeTakeFirst();
}

export async function findOpenInvitationByEmail(db: Executor, accountId: string, email: string) {
  return db
    .selectFrom('account_invitations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where(isOpen)
    .executeTakeFirst();
}

export interface NewInvitation {
  account_id: string;
  name: string;
  email: string;
  role: InvitationRole;
  secret_hash: string;
  invited_by_type: AccountInvitationRow['invited_by_type'];
  invited_by_id: string | null;
  expires_at: Date;
}

export async function insertInvitation(db: Executor, invitation: NewInvitation): Promise<AccountInvitationRow> {
  return db.insertInto('account_invitations').values({ id: newId(), ...invitation }).returningAll().executeTakeFirstOrThrow();
}

/** A resend: a new secret and a new validity window on the same open record. */
export async function renewInvitation(db: Executor, id: string, secretHash: string, expiresAt: Date) {
  return db
    .updateTable('account_invitations')
    .set({ secret_hash: secretHash, expires_at: expiresAt, updated_at: new Date() })
    .where('id', '=', id)
    .where(isOpen)
    .returningAll()
    .executeTakeFirst();
}

/** Only an open invitation changes: a cancelled or accepted one is history. */
export async function updateOpenInvitation(
  db: Executor,
  accountId: string,
  id: string,
  fields: { name?: string; deleted_at?: Date },
): Promise<boolean> {
  const result = await db
    .updateTable('account_invitations')
    .set({ ...fields, updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where(isOpen)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The invitation an invite URL's secret names; with `lock`, locked until the transaction ends. */
export async function findInvitationBySecret(
  db: Executor,
  secretHash: string,
  options: { lock: boolean },
): Promise<AccountInvitationRow | undefined> {
  const query = db.selectFrom('account_invitations').selectAll().where('secret_hash', '=', secretHash);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function markAccepted(db: Executor, id: string): Promise<void> {
  const now = new Date();
  await db.updateTable('account_invitations').set({ accepted_at: now, updated_at: now }).where('id', '=', id).execute();
}

export async function isMemberByEmail(db: Executor, accountId: string, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('account_users')
    .innerJoin('users', 'users.id', 'account_users.user_id')
    .select('account_users.id')
    .where('account_users.account_id', '=', accountId)
    .where(sql<string>`lower(users.email)`, '=', email.toLowerCase())
    .executeTakeFirst();
  return row !== undefined;
}

export async function accountName(db: Executor, accountId: string): Promise<string | undefined> {
  return (await db.selectFrom('accounts').select('name').where('id', '=', accountId).executeTakeFirst())?.name;
}

export interface EmailOutcome {
  email_status: InvitationEmailStatus;
  email_sent_at?: Date;
  email_attempts: number;
  email_retry_at: Date | null;
}

export async function recordEmail(db: Executor, id: string, outcome: EmailOutcome): Promise<AccountInvitationRow | undefined> {
  return db.updateTable('account_invitations').set(outcome).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Open invitations whose failed email is due for another try. */
export async function dueEmailRetries(db: Executor, now: Date, limit = 50): Promise<string[]> {
  const rows = await db
    .selectFrom('account_invitations')
    .select('id')
    .where('email_status', '=', 'failed')
    .where('email_retry_at', '<=', now)
    .where(isOpen)
    .orderBy('email_retry_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Takes one due retry: a new secret and validity window, and the retry time moved on (a lease), in
 * one conditional update, so that of several instances only one gets it.
 */
export async function claimEmailRetry(db: Executor, id: string, now: Date, secretHash: string, expiresAt: Date) {
  return db
    .updateTable('account_invitations')
    .set({ secret_hash: secretHash, expires_at: expiresAt, updated_at: now, email_retry_at: new Date(now.getTime() + 10 * 60_000) })
    .where('id', '=', id)
    .where('email_status', '=', 'failed')
    .where('email_retry_at', '<=', now)
    .where(isOpen)
    .returningAll()
    .executeTakeFirst();
}
