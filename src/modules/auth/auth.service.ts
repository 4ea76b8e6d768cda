import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { UnauthorizedError } from '../../http/app-errors.ts';
import type { Principal } from '../../http/auth.ts';
import { findAccountById } from '../accounts/accounts.service.ts';
import { toAccount } from '../accounts/accounts.schema.ts';
import { findPartner } from '../partners/partners.service.ts';
import { issueToken, revokeTokenById, sessionExpiry } from '../tokens/tokens.service.ts';
import { toUser } from '../users/users.schema.ts';
import { verifyPassword } from '../../lib/passwords.ts';
import { findUser, findUserByEmail } from '../users/users.service.ts';

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

/** Who the token belongs to: its partner, its user, and the account of an account token. */
export async function whoAmI(db: Kysely<Database>, principal: Principal) {
  const partner = principal.type === 'partner' ? await findPartner(db, principal.partnerId!) : undefined;
  const user = principal.type === 'user' ? await findUser(db, principal.userId!) : undefined;
  const account = principal.accountId ? await findAccountById(db, principal.accountId) : undefined;
  return {
    token_type: principal.type,
    partner: partner ? { id: partner.id, name: partner.name, created_at: partner.created_at.toISOString() } : null,
    user: user ? toUser(user) : null,
    account: account ? toAccount(account) : null,
  };
}
