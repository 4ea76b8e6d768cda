import type { Kysely } from 'kysely';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import { isUniqueViolation } from '../../db/kysely.ts';
import type { AccountInvitationRow, Database, UserRow } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../../http/app-errors.ts';
import { Problems } from '../../http/validation.ts';
import { findMembership, insertMembership } from '../account-users/account-users.service.ts';
import { findAccountUser } from '../account-users/account-users.service.ts';
import { toAccountUser, type AccountUser } from '../account-users/account-users.schema.ts';
import { issueToken, sessionExpiry } from '../tokens/tokens.service.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { checkNewPassword } from '../users/users.service.ts';
import { findUserByEmail, insertUser } from '../users/users.service.ts';
import { findInvitationBySecret, markAccepted } from './account-invitations.repository.ts';
import { hashInvitationSecret, invitationState } from './invitation-secret.ts';

export const INVITATION_NOT_FOUND = 'Invitation not found';
export const INVITATION_USED = 'Invitation has already been accepted';
export const INVITATION_EXPIRED = 'Invitation has expired; ask for a new one';

export interface AcceptInput {
  token: string;
  name?: string;
  password: string;
}

/** Unknown and cancelled links are 404; a used or expired one says so (422). */
function usable(invitation: AccountInvitationRow | undefined): AccountInvitationRow {
  const state = invitation ? invitationState(invitation) : 'cancelled';
  if (!invitation || state === 'cancelled') throw new NotFoundError(INVITATION_NOT_FOUND);
  if (state === 'accepted') throw new ValidationError(INVITATION_USED);
  if (state === 'expired') throw new ValidationError(INVITATION_EXPIRED);
  return invitation;
}

/**
 * Who accepts: the user with the invited email, who proves it with their password, or a new user
 * made from the invitation (the name given here, else the invited name) with this password.
 */
async function acceptingUser(db: Kysely<Database>, invitation: AccountInvitationRow, input: AcceptInput) {
  const existing = await findUserByEmail(db, invitation.email);
  if (existing) {
    if (!(await verifyPassword(existing.password_hash, input.password))) {
      throw new ValidationError('Password is invalid');
    }
    return { existing };
  }
  const problems = new Problems();
  const name = input.name?.trim() || invitation.name;
  checkNewPassword(problems, input.password);
  problems.throwIfAny();
  return { created: { name, email: invitation.email, passwordHash: await hashPassword(input.password) } };
}

/**
 * Accepts an invitation: the user (made if new) becomes a member with the invited role, the
 * invitation is marked accepted, and the user gets a session token. The invitation row is locked
 * while this happens, so that a link works once.
 */
export async function acceptInvitation(db: Kysely<Database>, input: AcceptInput): Promise<{ data: AccountUser; token: string }> {
  const secretHash = hashInvitationSecret(input.token);
  const first = usable(await findInvitationBySecret(db, secretHash, { lock: false }));
  const who = await acceptingUser(db, first, input);
  try {
    return await db.transaction().execute(async (trx) => {
      const invitation = usable(await findInvitationBySecret(trx, secretHash, { lock: true }));
      const user: UserRow = who.existing ?? (await insertUser(trx, who.created!));
      const accountId = invitation.account_id;
      const membership = (await findMembership(trx, accountId, user.id))
        ?? (await insertMembership(trx, accountId, user.id, invitation.role === 'admin'));
      await markAccepted(trx, invitation.id);
      const session = await issueToken(trx, { type: 'user', kind: 'session', userId: user.id, expiresAt: sessionExpiry() });
      const view = await findAccountUser(trx, accountId, membership.id);
      const actor = { type: 'user' as const, id: user.id };
      await recordAudit(trx, { accountId, resourceType: 'account_invitation', resourceId: invitation.id, action: 'accept', before: invitation, after: { accepted: true }, actor });
      return { data: toAccountUser(view!), token: session.token };
    });
  } catch (error) {
    // Someone signed up with this email between the check and the insert.
    if (isUniqueViolation(error)) throw new ValidationError('Email has already been taken');
    throw error;
  }
}
