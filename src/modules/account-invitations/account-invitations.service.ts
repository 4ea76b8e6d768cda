import type { FastifyBaseLogger } from 'fastify';
import { isUniqueViolation } from '../../db/kysely.ts';
import type { AccountInvitationRow } from '../../db/schema.ts';
import type { Principal } from '../../http/auth.ts';
import { BadRequestError } from '../../http/app-errors.ts';
import { invitationEmail } from '../../mail/invitation-email.ts';
import type { Services } from '../../services.ts';
import { findUser, normaliseEmail } from '../users/users.repository.ts';
import {
  accountName,
  findOpenInvitationByEmail,
  insertInvitation,
  isMemberByEmail,
  renewInvitation,
} from './account-invitations.repository.ts';
import type { CreateInvitationInput } from './account-invitations.schema.ts';
import { invitationExpiry, inviteUrl, newInvitationSecret, type InvitationSecret } from './invitation-secret.ts';

export const ALREADY_MEMBER = 'Email is already a member of this account';

type Deps = Pick<Services, 'db' | 'mailer' | 'config'>;

export interface InvitationOutcome {
  row: AccountInvitationRow;
  /** False when an open invitation for the email existed and was sent again. */
  created: boolean;
}

/**
 * Invites someone to the account, or resends the open invitation for that email (same record, new
 * secret, new 7-day window; its name and role stay as first given). Then emails the link.
 */
export async function inviteToAccount(
  deps: Deps,
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

  const secret = newInvitationSecret();
  const expiresAt = invitationExpiry();
  const resend = async (): Promise<AccountInvitationRow | undefined> => {
    const open = await findOpenInvitationByEmail(db, accountId, email);
    return open && renewInvitation(db, open.id, secret.hash, expiresAt);
  };
  let outcome: InvitationOutcome | undefined;
  const resent = await resend();
  if (resent) outcome = { row: resent, created: false };
  else {
    const byUser = principal.type === 'user';
    const values = {
      account_id: accountId, name, email, role: input.role, secret_hash: secret.hash, expires_at: expiresAt,
      invited_by_type: byUser ? 'account_user' as const : 'API' as const,
      invited_by_id: byUser ? principal.userId : null,
    };
    try {
      outcome = { row: await insertInvitation(db, values), created: true };
    } catch (error) {
      // Another request invited the same email a moment ago: resend that one.
      const raced = isUniqueViolation(error) ? await resend() : undefined;
      if (!raced) throw error;
      outcome = { row: raced, created: false };
    }
  }
  await sendInvitation(deps, log, outcome.row, secret);
  return outcome;
}

/**
 * A failed email does not lose the invitation: it is stored, the answer is still 201 (or 200), and
 * the failure is logged; creating it again resends it with a new link.
 */
async function sendInvitation(deps: Deps, log: FastifyBaseLogger, row: AccountInvitationRow, secret: InvitationSecret) {
  const [account, inviter] = await Promise.all([
    accountName(deps.db, row.account_id),
    row.invited_by_id ? findUser(deps.db, row.invited_by_id) : undefined,
  ]);
  const message = invitationEmail({
    to: row.email,
    inviteeName: row.name,
    accountName: account ?? 'an account',
    role: row.role,
    inviter: inviter ? { name: inviter.name, email: inviter.email } : null,
    inviteUrl: inviteUrl(deps.config.publicUrl, secret.secret),
    expiresAt: row.expires_at,
  });
  try {
    await deps.mailer.send(message, log);
  } catch (error) {
    log.error({ err: error, invitation_id: row.id }, 'the invitation email could not be sent');
  }
}
