import type { Kysely } from 'kysely';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import type { Config } from '../../config.ts';
import { isId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import type { Database } from '../../db/schema.ts';
import { ForbiddenError, found, NEEDS_ADMIN } from '../../http/app-errors.ts';
import type { Principal } from '../../http/auth.ts';
import { Problems } from '../../http/validation.ts';
import { normaliseDomain } from '../../lib/hosts.ts';
import { findMembership, insertMembership, memberIdsOf } from '../account-users/account-users.service.ts';
import { accountTokenHashes } from '../tokens/tokens.service.ts';
import {
  countOwnedAccounts,
  deleteAccount,
  findAccount,
  findAccountById,
  insertAccount,
  lockOwnedAccounts,
  partnerOwnsGroup,
  updateAccount,
  type NewAccount,
} from './accounts.repository.ts';
import { NEW_ACCOUNT_AI_FEATURES, type AccountFields, type AccountWithStatus } from './accounts.schema.ts';

/** What other modules use of the accounts: facts of the onboarding status, settings, scan schedules. */
export {
  accountLanguage,
  accountLanguageAndDomain,
  findAccount,
  findAccountById,
  findAiFeatures,
  findScanAccount,
  markCodeInstalled,
  markVendorsSetup,
  takeDueScanSchedules,
} from './accounts.repository.ts';

/**
 * What the writes on accounts need: the database, the cap on a user's accounts, and the caches an
 * account's change or deletion makes stale, each forgotten here and on every other instance.
 */
export interface AccountWrites {
  db: Kysely<Database>;
  config: Pick<Config, 'accountsPerUserMax'>;
  forgetTokens(hashes: string[]): Promise<void>;
  forgetMemberships(userIds: string[]): Promise<void>;
  forgetCategories(accountIds: string[]): Promise<void>;
  forgetBanner(accountIds: string[]): Promise<void>;
}

/**
 * Checks and normalises account fields; 422 with every problem at once. `currentGroupId` is the
 * account's group (null for a new one): only a partner moves an account, and only into its own groups.
 */
async function cleanFields(
  db: Executor,
  principal: Principal,
  fields: AccountFields,
  currentGroupId: string | null,
): Promise<Partial<NewAccount> & Pick<AccountFields, 'ai_features' | 'scan_schedule'>> {
  const problems = new Problems();
  const out: Partial<NewAccount> & Pick<AccountFields, 'ai_features' | 'scan_schedule'> = {
    ai_features: fields.ai_features,
    scan_schedule: fields.scan_schedule,
  };
  if (fields.name !== undefined) out.name = problems.required('name', fields.name);
  if (fields.domain !== undefined) {
    const domain = normaliseDomain(fields.domain);
    if (fields.domain.trim() === '') problems.add('domain', "can't be blank");
    else if (!domain) problems.add('domain', 'is invalid');
    out.domain = domain;
  }
  if (fields.allowed_domains !== undefined) {
    const domains = fields.allowed_domains.map(normaliseDomain);
    if (domains.some((domain) => !domain)) problems.add('allowed_domains', 'is invalid');
    out.allowed_domains = [...new Set(domains.filter((domain): domain is string => !!domain))];
  }
  if (fields.default_language !== undefined) out.default_language = fields.default_language;
  if (fields.https_only !== undefined) out.https_only = fields.https_only;
  if (fields.consent_retention_days !== undefined) out.consent_retention_days = fields.consent_retention_days;
  if (fields.group_id !== undefined) {
    const groupId = fields.group_id;
    const allowed = principal.type === 'partner'
      ? isId(groupId) && (await partnerOwnsGroup(db, principal.partnerId!, groupId))
      : groupId === currentGroupId;
    if (!allowed) problems.add('group', 'must exist');
    out.group_id = groupId;
  }
  problems.throwIfAny();
  return out;
}

/**
 * The account the caller reaches (404 otherwise), when the caller may change it (403 otherwise):
 * partners may; account tokens may update it; users must be admins to update it and its owner to
 * delete it.
 */
async function writableAccount(db: Executor, principal: Principal, id: string, action: 'update' | 'delete'): Promise<AccountWithStatus> {
  const account = await reachableAccount(db, principal, id);
  if (principal.type === 'partner') return account;
  if (principal.type === 'account') {
    if (action === 'delete') throw new ForbiddenError('Only the account owner or its partner can delete an account');
    return account;
  }
  if (action === 'delete') {
    if (account.owner_id !== principal.userId) {
      throw new ForbiddenError('Only the account owner or its partner can delete an account');
    }
    return account;
  }
  const membership = await findMembership(db, account.id, principal.userId!);
  if (!membership?.admin) throw new ForbiddenError(NEEDS_ADMIN);
  return account;
}

/** An account the caller reaches, or 404. */
export async function reachableAccount(db: Executor, principal: Principal, id: string): Promise<AccountWithStatus> {
  return found(await findAccount(db, principal, id));
}

/** Partners and users create accounts; an account token does not. */
export function assertMayCreateAccount(principal: Principal): void {
  if (principal.type === 'account') throw new ForbiddenError('Account tokens cannot create accounts');
}

/**
 * A partner's account goes in one of its groups; a user's is owned and administered by the user,
 * whose cached memberships are forgotten everywhere (or for a while their token would still act on
 * their only earlier account). A user owns at most `ACCOUNTS_PER_USER_MAX` accounts, counted under a
 * lock so that simultaneous requests cannot pass it; a partner's accounts are not bounded (partners
 * are made by the operator, and manage many sites).
 */
export async function createAccount(
  writes: Pick<AccountWrites, 'db' | 'config' | 'forgetMemberships'>,
  principal: Principal,
  fields: AccountFields,
): Promise<AccountWithStatus> {
  const { db, config } = writes;
  assertMayCreateAccount(principal);
  const clean = await cleanFields(db, principal, { ...fields, group_id: fields.group_id ?? null }, null);
  const id = await db.transaction().execute(async (trx) => {
    if (principal.userId) {
      await lockOwnedAccounts(trx, principal.userId);
      const cap = config.accountsPerUserMax;
      if ((await countOwnedAccounts(trx, principal.userId)) >= cap) {
        new Problems().add('accounts', `are limited to ${cap} per user; delete one first`).throwIfAny();
      }
    }
    const row = await insertAccount(trx, {
      name: clean.name!,
      domain: clean.domain!,
      allowed_domains: clean.allowed_domains ?? [],
      group_id: clean.group_id ?? null,
      owner_id: principal.userId,
      default_language: clean.default_language ?? 'en',
      https_only: clean.https_only ?? true,
      consent_retention_days: clean.consent_retention_days,
      ai_features: { ...NEW_ACCOUNT_AI_FEATURES, ...clean.ai_features },
    });
    if (principal.userId) await insertMembership(trx, row.id, principal.userId, true);
    await recordAudit(trx, { accountId: row.id, resourceType: 'account', resourceId: row.id, action: 'create', after: row });
    return row.id;
  });
  if (principal.userId) await writes.forgetMemberships([principal.userId]);
  return (await findAccountById(db, id))!;
}

/** Only the fields sent change; the banner is built anew with them. */
export async function changeAccount(
  writes: Pick<AccountWrites, 'db' | 'forgetBanner'>,
  principal: Principal,
  id: string,
  fields: AccountFields,
): Promise<AccountWithStatus> {
  const { db } = writes;
  const account = await writableAccount(db, principal, id, 'update');
  const changes = await cleanFields(db, principal, fields, account.group_id);
  await db.transaction().execute(async (trx) => {
    await updateAccount(trx, account.id, changes);
    const after = await findAccountById(trx, account.id);
    await recordAudit(trx, { accountId: account.id, resourceType: 'account', resourceId: account.id, action: 'update', before: account, after });
  });
  await writes.forgetBanner([account.id]);
  return (await findAccountById(db, account.id))!;
}

/** Deletes the account and everything in it; its tokens, memberships and caches are forgotten everywhere. */
export async function removeAccount(
  writes: Pick<AccountWrites, 'db' | 'forgetTokens' | 'forgetMemberships' | 'forgetCategories'>,
  principal: Principal,
  id: string,
): Promise<void> {
  const { db } = writes;
  const account = await writableAccount(db, principal, id, 'delete');
  const { tokenHashes, memberIds } = await db.transaction().execute(async (trx) => {
    const gone = { tokenHashes: await accountTokenHashes(trx, account.id), memberIds: await memberIdsOf(trx, account.id) };
    await deleteAccount(trx, account.id);
    return gone;
  });
  await writes.forgetTokens(tokenHashes);
  await writes.forgetMemberships(memberIds);
  await writes.forgetCategories([account.id]);
}
