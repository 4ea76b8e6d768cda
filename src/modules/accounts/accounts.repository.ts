import { sql, type ExpressionBuilder, type RawBuilder } from 'kysely';
import { newId } from '../../db/ids.ts';
import { toJson, type Executor } from '../../db/kysely.ts';
import type { AccountRow, Database, ScanSchedule } from '../../db/schema.ts';
import { listPage } from '../../db/list-page.ts';
import { countRows } from '../../db/row-count.ts';
import type { Window } from '../../http/pagination.ts';
import type { Principal } from '../../http/auth.ts';
import { aiFeaturesOf, LIVE_VISITORS, type AccountWithStatus, type AiFeatures, type AiFeaturesChange, type OnboardingStatus } from './accounts.schema.ts';

/**
 * The onboarding status, derived in SQL from facts so that it can be listed and filtered:
 * installed accounts are `live` with enough recent visitors; below that they are `code_installed`
 * during their first 30 days and `inactive` after.
 */
export function onboardingStatus(alias = 'accounts'): RawBuilder<OnboardingStatus> {
  const a = sql.table(alias);
  return sql<OnboardingStatus>`case
    when ${a}.code_installed_at is null then
      case when ${a}.vendors_setup_at is null then 'account_created' else 'vendors_setup' end
    when (select count(*) from account_recent_visitors v
            where v.account_id = ${a}.id and v.last_seen_at > now() - interval '30 days') >= ${sql.lit(LIVE_VISITORS)} then 'live'
    when ${a}.code_installed_at > now() - interval '30 days' then 'code_installed'
    else 'inactive'
  end`;
}

const period = (schedule: ScanSchedule) => sql`case ${schedule} when 'weekly' then interval '7 days' else interval '30 days' end`;

/** The columns a schedule change writes; the same schedule again keeps its date. */
export function scheduleChange(schedule: ScanSchedule) {
  return {
    scan_schedule: schedule,
    next_scan_at: schedule === 'off'
      ? null
      : sql<Date>`case when scan_schedule = ${schedule} and next_scan_at is not null then next_scan_at else now() + ${period(schedule)} end`,
  };
}

/**
 * The accounts whose rescan is due, their next date moved a period on in the same statement:
 * each due date is taken once, by one instance (SKIP LOCKED), even with several running.
 */
export async function takeDueScanSchedules(db: Executor, limit: number): Promise<Array<{ id: string; domain: string }>> {
  const due = db
    .selectFrom('accounts')
    .select('id')
    .where('scan_schedule', '<>', 'off')
    .where('next_scan_at', '<=', sql<Date>`now()`)
    .orderBy('next_scan_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  return db
    .updateTable('accounts')
    .set({ next_scan_at: sql`now() + case scan_schedule when 'weekly' then interval '7 days' else interval '30 days' end` })
    .where('id', 'in', due)
    .returning(['id', 'domain'])
    .execute();
}

/**
 * What a scan of the account needs: the hosts it may start on (the domain and allowed domains), and
 * its owner, whom its scans count against: the partner of the account's group, else the user who
 * owns it, else the account itself.
 */
export async function findScanAccount(
  db: Executor,
  accountId: string,
): Promise<{ domain: string; allowed_domains: string[]; scan_owner_id: string } | undefined> {
  return db
    .selectFrom('accounts')
    .leftJoin('groups', 'groups.id', 'accounts.group_id')
    .select(['accounts.domain', 'accounts.allowed_domains'])
    .select(sql<string>`coalesce(groups.partner_id, accounts.owner_id, accounts.id)`.as('scan_owner_id'))
    .where('accounts.id', '=', accountId)
    .executeTakeFirst();
}

/** Holds, until the transaction ends, the right to add an account owned by this user (one at a time). */
export async function lockOwnedAccounts(db: Executor, userId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`consentry:owned-accounts:${userId}`}))`.execute(db);
}

export async function countOwnedAccounts(db: Executor, userId: string): Promise<number> {
  return countRows(db.selectFrom('accounts').where('owner_id', '=', userId));
}

/** The account's language, the default of what is created in it. */
export async function accountLanguage(db: Executor, accountId: string): Promise<string> {
  const row = await db.selectFrom('accounts').select('default_language').where('id', '=', accountId).executeTakeFirstOrThrow();
  return row.default_language;
}

/**
 * What the AI reads of the account for one item: the language it writes in, and the website's own
 * domain ('' when not set), to which any other domain is a third party.
 */
export async function accountLanguageAndDomain(db: Executor, accountId: string): Promise<{ language: string; domain: string }> {
  const row = await db.selectFrom('accounts').select(['default_language', 'domain']).where('id', '=', accountId).executeTakeFirstOrThrow();
  return { language: row.default_language, domain: row.domain };
}

/** What the AI may do on the account (the defaults for an unknown account). */
export async function findAiFeatures(db: Executor, accountId: string): Promise<AiFeatures> {
  const row = await db.selectFrom('accounts').select('ai_features').where('id', '=', accountId).executeTakeFirst();
  return aiFeaturesOf(row?.ai_features);
}

/**
 * The facts behind the onboarding status. Each is written once: later calls touch no row.
 */
export async function markVendorsSetup(db: Executor, accountId: string): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ vendors_setup_at: new Date() })
    .where('id', '=', accountId)
    .where('vendors_setup_at', 'is', null)
    .execute();
}

/** Marks the accounts whose banner was seen as installed (once: later calls touch no row). */
export async function markCodeInstalled(db: Executor, accountIds: string[]): Promise<void> {
  if (accountIds.length === 0) return;
  await sql`update accounts set code_installed_at = now() where id = any(${accountIds}::uuid[]) and code_installed_at is null`.execute(db);
}

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
  filters: { onboarding_status?: OnboardingStatus; group_id?: string; domain?: string },
  window: Window,
): Promise<{ rows: AccountWithStatus[]; count: number }> {
  let scoped = db.selectFrom('accounts').where(reachableBy(principal));
  if (filters.group_id) scoped = scoped.where('accounts.group_id', '=', filters.group_id);
  if (filters.domain) scoped = scoped.where('accounts.domain', '=', filters.domain);
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
  /** The AI settings stored; unset: none, so every one has its default (off). */
  ai_features?: AiFeaturesChange;
  /** The `demo` command's account. */
  demo?: boolean;
}

export async function insertAccount(db: Executor, account: NewAccount): Promise<AccountRow> {
  const { ai_features, ...fields } = account;
  return db
    .insertInto('accounts')
    .values({ id: newId(), ...fields, allowed_domains: toJson(account.allowed_domains), ...(ai_features && { ai_features: toJson(ai_features) }) })
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

export async function partnerOwnsGroup(db: Executor, partnerId: string, groupId: string): Promise<boolean> {
  const row = await db.selectFrom('groups').select('id').where('id', '=', groupId).where('partner_id', '=', partnerId).executeTakeFirst();
  return row !== undefined;
}
