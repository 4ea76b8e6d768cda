import type { FastifyBaseLogger } from 'fastify';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import { isUniqueViolation } from '../../db/kysely.ts';
import type { AccountInvitationRow } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { BadRequestError, found, NotFoundError, RateLimitedError } from '../../http/app-errors.ts';
import { normaliseEmail } from '../users/users.service.ts';
import {
  findInvitation,
  findOpenInvitationByEmail,
  insertInvitation,
  isMemberByEmail,
  renewInvitation,
} from './account-invitations.repository.ts';
import type { CreateInvitationInput } from './account-invitations.schema.ts';
import { invitationExpiry, newInvitationSecret } from './invitation-secret.ts';
import { deliverInvitation, emailWaitSeconds, type Delivered, type InvitationMail } from './invitation-mail.ts';

export const ALREADY_MEMBER = 'Email is already a member of this account';

export interface InvitationOutcome extends Delivered {
  /** False when an open invitation for the email existed and was sent again (or left alone). */
  created: boolean;
}

/**
 * Invites someone to the account, or resends the open invitation for that email (same record, new
 * secret, new 7-day window; its name and role stay as first given). Then emails the link. An
 * address that got an email from this account less than an hour ago gets no other: the open
 * invitation is answered as it is, its emailed link still working.
 */
export async function inviteToAccount(
  deps: InvitationMail,
  log: FastifyBaseLogger,
  accountId: string,
  principal: Principal,
  input: CreateInvitationInput,
): Promise<InvitationOutcome> {
  const { db } = deps;
  const name = input.name.trim();
  if (name === '') throw new BadRequestError("Name can't be blank");
  const email = normaliseEmail(input.email);
  if (await isMemberByEmail(db, accountId, email)) throw new BadRequestError(ALREADY_MEMBER);

  const open = await findOpenInvitationByEmail(db, accountId, email);
  if (open && deps.config.smtpUrl && emailWaitSeconds(open) > 0) return { row: open, inviteUrl: null, created: false };

  const secret = newInvitationSecret();
  const expiresAt = invitationExpiry();
  const resend = async (): Promise<AccountInvitationRow | undefined> => {
    const current = await findOpenInvitationByEmail(db, accountId, email);
    return current && renewInvitation(db, current.id, secret.hash, expiresAt);
  };
  let row: AccountInvitationRow | undefined;
  let created = false;
  if (open) row = await renewInvitation(db, open.id, secret.hash, expiresAt);
  if (!row) {
    const byUser = principal.type === 'user';
    const values = {
      account_id: accountId, name, email, role: input.role, secret_hash: secret.hash, expires_at: expiresAt,
      invited_by_type: byUser ? 'account_user' as const : 'API' as const,
      invited_by_id: byUser ? principal.userId : null,
    };
    try {
      row = await insertInvitation(db, values);
      created = true;
    } catch (error) {
      // Another request invited the same email a moment ago: resend that one.
      row = isUniqueViolation(error) ? await resend() : undefined;
      if (!row) throw error;
    }
  }
  await recordAudit(db, { accountId, resourceType: 'account_invitation', resourceId: row.id, action: created ? 'create' : 'resend', before: created ? undefined : open, after: row });
  return { ...(await deliverInvitation(deps, log, row, secret)), created };
}

/**
 * The inviter asks for the email again: a new link, at once after a failed send or without SMTP,
 * else once the hour since the last email has passed (429 with Retry-After before).
 */
export async function resendInvitation(deps: InvitationMail, log: FastifyBaseLogger, accountId: string, id: string): Promise<Delivered> {
  const current = await findInvitation(deps.db, accountId, id);
  if (!current || current.deleted_at || current.accepted_at) throw new NotFoundError();
  const wait = deps.config.smtpUrl ? emailWaitSeconds(current) : 0;
  if (wait > 0) throw new RateLimitedError(wait);
  const secret = newInvitationSecret();
  const row = found(await renewInvitation(deps.db, id, secret.hash, invitationExpiry()));
  await recordAudit(deps.db, { accountId, resourceType: 'account_invitation', resourceId: id, action: 'resend', before: current, after: row });
  return deliverInvitation(deps, log, row, secret);
}
