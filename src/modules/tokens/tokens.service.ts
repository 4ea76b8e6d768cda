import type { ApiTokenRow, TokenKind, TokenType } from '../../db/schema.ts';
import type { Executor } from '../../db/kysely.ts';
import { generateToken } from '../../lib/token-secret.ts';
import { insertToken } from './tokens.repository.ts';

export interface TokenRequest {
  type: TokenType;
  kind: TokenKind;
  name?: string | null;
  partnerId?: string | null;
  userId?: string | null;
  accountId?: string | null;
  expiresAt?: Date | null;
}

export const SESSION_DAYS = 30;

/** Creates a token; the secret is returned here once and never stored. */
export async function issueToken(db: Executor, request: TokenRequest): Promise<{ row: ApiTokenRow; token: string }> {
  const secret = generateToken(request.type);
  const row = await insertToken(db, {
    token_hash: secret.hash,
    token_hint: secret.hint,
    token_type: request.type,
    kind: request.kind,
    name: request.name ?? null,
    partner_id: request.partnerId ?? null,
    user_id: request.userId ?? null,
    account_id: request.accountId ?? null,
    expires_at: request.expiresAt ?? null,
  });
  return { row, token: secret.token };
}

export function sessionExpiry(now = Date.now()): Date {
  return new Date(now + SESSION_DAYS * 24 * 60 * 60 * 1000);
}

/** What other modules use of the tokens: revoking them when a password, a session or an account ends. */
export { accountTokenHashes, revokeTokenById, revokeUserSessions } from './tokens.repository.ts';
