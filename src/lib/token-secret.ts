import { hash, randomBytes } from 'node:crypto';

/** Who a token belongs to; the database stores it as `api_tokens.token_type`. */
export type TokenType = 'partner' | 'user' | 'account';

export const TOKEN_PREFIX: Record<TokenType, string> = { partner: 'csp_', user: 'csu_', account: 'csa_' };
const PREFIX_TYPES = new Map(Object.entries(TOKEN_PREFIX).map(([type, prefix]) => [prefix, type as TokenType]));

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 random bytes in base62 take at most 43 characters. */
const SECRET_LENGTH = 43;

function base62(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(SECRET_LENGTH, '0');
}

/** SHA-256 in hex, in one call: the hot path hashes every request's token (a third of the cost of a hash object). */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export interface NewSecret {
  token: string;
  hash: string;
  hint: string;
}

export function generateToken(type: TokenType): NewSecret {
  const token = TOKEN_PREFIX[type] + base62(randomBytes(32));
  return { token, hash: hashToken(token), hint: token.slice(-4) };
}

/** The type a well-formed token claims by its prefix, or undefined for anything else. */
export function tokenTypeOf(token: string): TokenType | undefined {
  if (token.length !== 4 + SECRET_LENGTH || !/^[A-Za-z0-9_]+$/.test(token)) return undefined;
  return PREFIX_TYPES.get(token.slice(0, 4));
}
