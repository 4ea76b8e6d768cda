import { randomBytes } from 'node:crypto';
import type { AccountInvitationRow } from '../../db/schema.ts';
import { hashToken } from '../../lib/token-secret.ts';

/**
 * The secret of an invite URL, separate from the invitation's id.
 *
 * Like API tokens, only its SHA-256 is stored (`secret_hash`): a copy of the database must not be
 * enough to join an account. So the server can show the working link only while it holds the
 * secret, which is in the one place that needs it: the email (or, without SMTP, the log line that
 * stands in for it). Creating an invitation makes a secret; creating it again for the same email
 * (a resend) makes a new one and a new 7-day window, and the previous link stops working. Every API
 * response shows `invite_url` with the secret masked. Keeping the secret readable instead would
 * need an encryption key outside the database, which the configuration does not have.
 */
export const INVITATION_DAYS = 7;
const MASK = '********';

export interface InvitationSecret {
  secret: string;
  hash: string;
}

export function newInvitationSecret(): InvitationSecret {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: hashToken(secret) };
}

export const hashInvitationSecret = (secret: string): string => hashToken(secret);

export function inviteUrl(publicUrl: string, secret: string): string {
  return `${publicUrl}/invitations/${secret}`;
}

export function maskedInviteUrl(publicUrl: string): string {
  return inviteUrl(publicUrl, MASK);
}

export function invitationExpiry(now = Date.now()): Date {
  return new Date(now + INVITATION_DAYS * 24 * 60 * 60 * 1000);
}

export const INVITATION_STATES = ['open', 'expired', 'accepted', 'cancelled'] as const;
export type InvitationState = (typeof INVITATION_STATES)[number];

type Timeline = Pick<AccountInvitationRow, 'accepted_at' | 'deleted_at' | 'expires_at'>;

export function invitationState(row: Timeline, now = Date.now()): InvitationState {
  if (row.accepted_at) return 'accepted';
  if (row.deleted_at) return 'cancelled';
  return row.expires_at.getTime() <= now ? 'expired' : 'open';
}
