import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/kysely.ts';
import type { AccountInvitationRow } from '../../db/schema.ts';
import { invitationEmail } from '../../mail/invitation-email.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { findUser } from '../users/users.service.ts';
import { accountName, claimEmailRetry, dueEmailRetries, recordEmail } from './account-invitations.repository.ts';
import { invitationExpiry, inviteUrl, newInvitationSecret, type InvitationSecret } from './invitation-secret.ts';

/** What sending an invitation needs: the database, the mailer, where links point and whether SMTP is set. */
export interface InvitationMail {
  db: Executor;
  mailer: Pick<Mailer, 'send'>;
  config: Pick<Config, 'publicUrl' | 'smtpUrl'>;
}

/** At most one email per invitation (so per address and account) in this window. */
export const EMAIL_INTERVAL_MS = 60 * 60 * 1000;
/** Sends tried for one link before the invitation stays `failed` until the inviter resends it. */
export const MAX_EMAIL_ATTEMPTS = 5;
/** After the n-th failed send: 1, 4, 16 and 64 minutes. */
export const retryDelayMs = (attempts: number): number => 60_000 * 4 ** (attempts - 1);

/** Whole seconds until another email may go to this invitation's address; 0 when one may now. */
export function emailWaitSeconds(row: Pick<AccountInvitationRow, 'email_sent_at'>, now = Date.now()): number {
  if (!row.email_sent_at) return 0;
  return Math.max(0, Math.ceil((row.email_sent_at.getTime() + EMAIL_INTERVAL_MS - now) / 1000));
}

export interface Delivered {
  row: AccountInvitationRow;
  /** The working link, only when there is no SMTP: it goes back to the admin who made the invitation. */
  inviteUrl: string | null;
}

/**
 * Sends the invitation's link (whose secret the caller has just stored) and records what became of
 * it. Without SMTP nothing is sent and the link is handed back instead: it is never logged.
 */
export async function deliverInvitation(
  deps: InvitationMail,
  log: FastifyBaseLogger,
  row: AccountInvitationRow,
  secret: InvitationSecret,
  attempt = 1,
): Promise<Delivered> {
  const link = inviteUrl(deps.config.publicUrl, secret.secret);
  if (!deps.config.smtpUrl) {
    log.info({ invitation_id: row.id }, 'SMTP_URL is not set: the invitation link was returned to the admin who made it, not emailed');
    const updated = await recordEmail(deps.db, row.id, { email_status: 'not_configured', email_attempts: 0, email_retry_at: null });
    return { row: updated ?? row, inviteUrl: link };
  }
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
    inviteUrl: link,
    expiresAt: row.expires_at,
  });
  let outcome: Parameters<typeof recordEmail>[2];
  try {
    await deps.mailer.send(message, log);
    outcome = { email_status: 'sent', email_sent_at: new Date(), email_attempts: attempt, email_retry_at: null };
  } catch (error) {
    const retryAt = attempt < MAX_EMAIL_ATTEMPTS ? new Date(Date.now() + retryDelayMs(attempt)) : null;
    log.error({ err: error, invitation_id: row.id, attempt, retry_at: retryAt }, 'the invitation email could not be sent');
    outcome = { email_status: 'failed', email_attempts: attempt, email_retry_at: retryAt };
  }
  const updated = await recordEmail(deps.db, row.id, outcome);
  return { row: updated ?? row, inviteUrl: null };
}

/**
 * Retries the failed invitation emails that are due: each with a new link (the old one reached
 * nobody). Claiming a row moves its retry time on, so instances sharing the database never send
 * the same retry twice.
 */
export async function retryDueInvitationEmails(deps: InvitationMail, log: FastifyBaseLogger, now = new Date()): Promise<number> {
  let sent = 0;
  for (const id of await dueEmailRetries(deps.db, now)) {
    const secret = newInvitationSecret();
    const claimed = await claimEmailRetry(deps.db, id, now, secret.hash, invitationExpiry(now.getTime()));
    if (!claimed) continue;
    const { row } = await deliverInvitation(deps, log, claimed, secret, claimed.email_attempts + 1);
    if (row.email_status === 'sent') sent++;
  }
  return sent;
}

/** The retries run in the background every half minute while SMTP is configured. */
export function startInvitationEmailRetries(deps: InvitationMail, log: FastifyBaseLogger): () => void {
  if (!deps.config.smtpUrl) return () => {};
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= retryDueInvitationEmails(deps, log)
      .catch((error: unknown) => log.warn({ err: error }, 'invitation email retries failed'))
      .finally(() => (running = undefined));
  }, 30_000);
  timer.unref();
  return () => clearInterval(timer);
}
