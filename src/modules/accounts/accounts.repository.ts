import { sql, type ExpressionBuilder } from 'kysely';
import type { AiFeaturesChange } from '../../ai/settings.ts';
import { newId } from '../../db/ids.ts';
import { toJson, type Executor } from '../../db/kysely.ts';
import type { AccountRow, AccountUserRow, Database, ScanSchedule } from '../../db/schema.ts';
import { listPage } from '../../db/list-page.ts';
import type { Window } from '../../http/pagination.ts';
import type { Principal } from '../../http/auth.ts';
import type { AccountWithStatus } from './accounts.schema.ts';
import { onboardingStatus, type OnboardingStatus } from './onboarding.ts';
import { scheduleChange } from './scan-schedule.ts';

/** The accounts a token reaches: its partner's groups', its user's memberships, or itself. */
function reachableBy(principal: Principal) {
  return (eb: ExpressionBuilder<Database, 'accounts'>) => {
    if (principal.type === 'partner') {
      return eb('accounts.group_id', 'in', eb.selectFrom('groups').select('groups.id').where('groups.partner_id', '=', principal.partnerId!));
    }
    if (principal.type === 'user') {
      return eb('accounts.id', 'in', eb.selectFrom('account_users').select('account_users.account_id').where('account_users.user_id', '=', principal.userId!));
    }
    return eb('accounts.id', '=', principal.accountId!);
  };
}

function withStatus(db: Executor) {
  return db.selectFrom('accounts').selectAll('accounts').select(onboardingStatus().as('onboarding_status'));
}

export async function listAccounts(
  db: Executor,
  principal: Principal,
  filters: { onboarding_status?: OnboardingStatus; group_id?: string },
  window: Window,
): Promise<{ rows: AccountWithStatus[]; count: number }> {
  let scoped = db.selectFrom('accounts').where(reachableBy(principal));
  if (filters.group_id) scoped = scoped.where('accounts.group_id', '=', filters.group_id);
  if (filters.onboarding_status) scoped = scoped.where(onboardingStatus(), '=', filters.onboarding_status);
  return listPage(scoped, (q) => q.selectAll('accounts').select(onboardingStatus().as('onboarding_status')).orderBy('accounts.created_at').orderBy('accounts.id'), window);
}

export async function findAccount(db: Executor, principal: Principal, id: string): Promise<AccountWithStatus | undefined> {
  return withStatus(db).where(reachableBy(principal)).where('accounts.id', '=', id).executeTakeFirst();
}

/** By id alone: for callers that already proved their reach (account-scoped routes). */
export async function findAccountById(db: Executor, id: string): Promise<AccountWithStatus | undefined> {
  return withStatus(db).where('accounts.id', '=', id).executeTakeFirst();
}

export interface NewAccount {
  name: string;
  domain: string;
  allowed_domains: string[];
  group_id: string | null;
  owner_id: string | null;
  default_language: string;
  /** Unset: true (the database's default for new accounts). */
  https_only?: boolean;
  consent_retention_days?: number;
}

export async function insertAccount(db: Executor, account: NewAccount): Promise<AccountRow> {
  return db
    .insertInto('accounts')
    .values({ id: newId(), ...account, allowed_domains: toJson(account.allowed_domains) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** `ai_features` merges into the stored settings: only the settings sent change. */
export async function updateAccount(
  db: Executor,
  id: string,
  fields: Partial<NewAccount> & { ai_features?: AiFeaturesChange; scan_schedule?: ScanSchedule },
): Promise<void> {
  const { allowed_domains, ai_features, scan_schedule, ...rest } = fields;
  await db
    .updateTable('accounts')
    .set({
      ...rest,
      ...(allowed_domains && { allowed_domains: toJson(allowed_domains) }),
      ...(ai_features && { ai_features: sql<string>`ai_features || ${toJson(ai_features)}::jsonb` }),
      ...(scan_schedule && scheduleChange(scan_schedule)),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteAccount(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('accounts').where('id', '=', id).execute();
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

export async function partnerOwnsGroup(db: Executor, partnerId: string, groupId: string): Promise<boolean> {
  const row = await db.selectFrom('groups').select('id').where('id', '=', groupId).where('partner_id', '=', partnerId).executeTakeFirst();
  return row !== undefined;
}

export async function memberIdsOf(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom('account_users').select('user_id').where('account_id', '=', accountId).execute();
  return rows.map((row) => row.user_id);
}
