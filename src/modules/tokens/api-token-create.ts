import { isId } from '../../db/ids.ts';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import type { ApiTokenRow } from '../../db/schema.ts';
import type { Executor } from '../../db/kysely.ts';
import { ForbiddenError, NEEDS_ADMIN } from '../../http/app-errors.ts';
import type { Principal } from '../../http/auth.ts';
import { Problems } from '../../http/validation.ts';
import { findMembership } from '../account-users/account-users.service.ts';
import { findAccount } from '../accounts/accounts.service.ts';
import { countLiveNamedTokens } from './tokens.repository.ts';
import type { TokenFields } from './tokens.schema.ts';
import { issueToken } from './tokens.service.ts';

/**
 * A named API token of the caller (`POST /api-tokens`): a user token, or with `account_id` an
 * account token, which a partner must name and a user may have only as an admin of the account.
 * Every problem of the request is one 422 together (an expiry in the past, an account that is not
 * the caller's, the cap of live tokens); a member who is no admin is 403 after those.
 *
 * Not in tokens.service.ts: it asks the accounts module, whose service asks tokens.service.ts in turn.
 */
export async function createApiToken(
  db: Executor, principal: Principal, fields: TokenFields, tokensPerOwnerMax: number,
): Promise<{ row: ApiTokenRow; token: string }> {
  const problems = new Problems();
  const name = fields.name?.trim() || null;
  const expiresAt = fields.expires_at ? new Date(fields.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= Date.now()) problems.add('expires_at', 'must be in the future');
  const accountId = fields.account_id;
  if (accountId === undefined && principal.type === 'partner') problems.add('account_id', "can't be blank");
  if (accountId !== undefined && !(isId(accountId) && (await findAccount(db, principal, accountId)))) {
    problems.add('account', 'must exist');
  }
  if ((await countLiveNamedTokens(db, principal)) >= tokensPerOwnerMax) {
    problems.add('api_tokens', `are limited to ${tokensPerOwnerMax} live tokens per user or partner; revoke one first`);
  }
  problems.throwIfAny();
  if (accountId !== undefined && principal.type === 'user') {
    const membership = await findMembership(db, accountId, principal.userId!);
    if (!membership?.admin) throw new ForbiddenError(NEEDS_ADMIN);
  }
  const issued = await issueToken(db, {
    type: accountId === undefined ? 'user' : 'account',
    kind: 'api',
    name,
    partnerId: principal.partnerId,
    userId: principal.userId,
    accountId: accountId ?? null,
    expiresAt,
  });
  // An account token is part of the account's configuration (a user's own token is not).
  if (accountId !== undefined) {
    await recordAudit(db, { accountId, resourceType: 'api_token', resourceId: issued.row.id, action: 'create', after: issued.row });
  }
  return issued;
}
