import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/kysely.ts';
import type { Database } from '../../db/schema.ts';
import { UnauthorizedError } from '../../http/app-errors.ts';
import type { Principal } from '../../http/auth.ts';
import { Problems } from '../../http/validation.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { issueToken, revokeUserSessions, sessionExpiry } from '../tokens/tokens.service.ts';
import { findUser, findUserByEmail, insertUser, updatePasswordHash } from './users.repository.ts';
import { MIN_PASSWORD_LENGTH, toUser, type User } from './users.schema.ts';

/** A password of the right length; `problems` collects what is wrong. */
export function checkNewPassword(problems: Problems, password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) problems.add('password', `is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)`);
}

/** Public sign-up: the user and a session token. */
export async function signUp(db: Kysely<Database>, fields: { name: string; email: string; password: string }): Promise<{ data: User; token: string }> {
  const problems = new Problems();
  const name = problems.required('name', fields.name);
  checkNewPassword(problems, fields.password);
  if (await findUserByEmail(db, fields.email)) problems.add('email', 'has already been taken');
  problems.throwIfAny();
  const passwordHash = await hashPassword(fields.password);
  try {
    return await db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, { name, email: fields.email, passwordHash });
      const session = await issueToken(trx, { type: 'user', kind: 'session', userId: user.id, expiresAt: sessionExpiry() });
      return { data: toUser(user), token: session.token };
    });
  } catch (error) {
    if (isUniqueViolation(error)) new Problems().add('email', 'has already been taken').throwIfAny();
    throw error;
  }
}

/** Changes the caller's password; answers the hashes of the other sessions it logged out. */
export async function changePassword(
  db: Kysely<Database>,
  principal: Principal,
  fields: { current_password: string; password: string; password_confirmation: string },
): Promise<string[]> {
  const user = await findUser(db, principal.userId!);
  if (!user) throw new UnauthorizedError();
  const problems = new Problems();
  if (!(await verifyPassword(user.password_hash, fields.current_password))) problems.add('current_password', 'is invalid');
  checkNewPassword(problems, fields.password);
  if (fields.password !== fields.password_confirmation) problems.add('password_confirmation', "doesn't match Password");
  problems.throwIfAny();
  const passwordHash = await hashPassword(fields.password);
  return db.transaction().execute(async (trx) => {
    await updatePasswordHash(trx, user.id, passwordHash);
    return revokeUserSessions(trx, user.id, principal.tokenId);
  });
}

/**
 * Sets a user's password without the old one (the operator's CLI); every session of the user is
 * logged out, as by a reset link. Answers the hashes of the sessions revoked.
 */
export async function setPassword(db: Kysely<Database>, userId: string, password: string): Promise<string[]> {
  const passwordHash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    await updatePasswordHash(trx, userId, passwordHash);
    return revokeUserSessions(trx, userId);
  });
}

/** What other modules use of the users. */
export { findUser, findUserByEmail, insertUser, normaliseEmail, updatePasswordHash } from './users.repository.ts';
