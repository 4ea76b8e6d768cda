import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/schema.ts';
import { ValidationError } from '../../http/app-errors.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { passwordResetEmail } from '../../mail/password-reset-email.ts';
import { revokeUserSessions } from '../tokens/tokens.service.ts';
import { hashToken } from '../../lib/token-secret.ts';
import { MIN_PASSWORD_LENGTH } from '../users/users.schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { findUserByEmail, updatePasswordHash } from '../users/users.service.ts';
import { consumeResetLink, findResetLink, replaceResetLink } from './password-resets.repository.ts';
import type { ResetInput } from './password-resets.schema.ts';

export const RESET_LINK_MS = 60 * 60 * 1000;
export const RESET_REQUESTED = 'If that email belongs to a user, a link to reset the password has been sent to it';
export const TOKEN_INVALID = 'Token is invalid or has already been used';
export const TOKEN_EXPIRED = 'Token has expired; ask for a new link';
const MASKED_SECRET = '********';

/** What the reset links need: the database, the mailer and the links' address, and the sessions they end. */
export interface ResetLinks {
  db: Kysely<Database>;
  mailer: Pick<Mailer, 'via' | 'send'>;
  config: Pick<Config, 'publicUrl'>;
  /** Forgets revoked tokens here and on every other instance. */
  forgetTokens(hashes: string[]): Promise<void>;
}

/** The page of the dashboard that takes the secret and asks for the new password. */
export const resetUrl = (publicUrl: string, secret: string) => `${publicUrl}/reset-password/${secret}`;

/**
 * Makes a single-use link valid for an hour and emails it, when the email belongs to a user. The
 * route answers before this runs (reset-queue.ts), the same answer whether or not it does, so that
 * neither the body nor the time of the answer tells who has a login here. The secret is only in
 * the email, never in a log.
 */
export async function sendResetLink(deps: Pick<ResetLinks, 'db' | 'mailer' | 'config'>, log: FastifyBaseLogger, email: string): Promise<void> {
  const user = await findUserByEmail(deps.db, email);
  if (!user) return;
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + RESET_LINK_MS);
  await replaceResetLink(deps.db, user.id, hashToken(secret), expiresAt);
  // Logs travel further than mailboxes: without SMTP only the email's envelope is logged (see
  // mail/mailer.ts), and its link is masked besides, so a reset by email needs SMTP_URL; the
  // operator's way around it is the CLI's `users set-password`.
  const link = resetUrl(deps.config.publicUrl, deps.mailer.via === 'smtp' ? secret : MASKED_SECRET);
  const message = passwordResetEmail({ to: user.email, userName: user.name, resetUrl: link, expiresAt });
  deps.mailer.send(message, log).catch((error: unknown) => {
    log.error({ err: error, userId: user.id }, 'could not send the password reset email');
  });
}

/**
 * Sets the new password through a link: the link is used up, and every session of the user is
 * logged out (whoever knew the old password is signed out too). Named API tokens stay.
 */
export async function resetPassword(deps: Pick<ResetLinks, 'db' | 'forgetTokens'>, input: ResetInput): Promise<void> {
  const tokenHash = hashToken(input.token);
  const link = await findResetLink(deps.db, tokenHash);
  const problems: string[] = [];
  if (!link || link.used_at) problems.push(TOKEN_INVALID);
  else if (link.expires_at.getTime() <= Date.now()) problems.push(TOKEN_EXPIRED);
  if (input.password.length < MIN_PASSWORD_LENGTH) problems.push(`Password is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)`);
  if (input.password !== input.password_confirmation) problems.push("Password confirmation doesn't match Password");
  if (problems.length > 0) throw new ValidationError(problems);
  const passwordHash = await hashPassword(input.password);
  const revoked = await deps.db.transaction().execute(async (trx) => {
    const userId = await consumeResetLink(trx, tokenHash, new Date());
    if (!userId) throw new ValidationError(TOKEN_INVALID);
    await updatePasswordHash(trx, userId, passwordHash);
    return revokeUserSessions(trx, userId);
  });
  await deps.forgetTokens(revoked);
}
