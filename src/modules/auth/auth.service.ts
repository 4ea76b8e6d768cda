import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { UnauthorizedError } from '../../http/app-errors.ts';
import type { Principal } from '../../http/auth.ts';
import { issueToken, revokeTokenById, sessionExpiry } from '../tokens/tokens.service.ts';
import { verifyPassword } from '../../lib/passwords.ts';
import { findUserByEmail } from '../users/users.service.ts';

/** A session token for a user's email and password; both failures read the same and take as long. */
export async function logIn(db: Kysely<Database>, email: string, password: string) {
  const user = await findUserByEmail(db, email);
  if (!(await verifyPassword(user?.password_hash, password)) || !user) throw new UnauthorizedError('Invalid email or password');
  const expiresAt = sessionExpiry();
  const { token } = await issueToken(db, { type: 'user', kind: 'session', userId: user.id, expiresAt });
  return { token, expires_at: expiresAt.toISOString(), user: { id: user.id, name: user.name, email: user.email } };
}

/** Revokes the caller's token; answers its hash (to forget) when it was live. */
export async function logOut(db: Kysely<Database>, principal: Principal): Promise<string | undefined> {
  return revokeTokenById(db, principal.tokenId);
}
