import { hash as digest, randomBytes } from 'node:crypto';
import { canonicalJson as canonical } from '../../lib/canonical-json.ts';
import type { NewConsent } from './consents.repository.ts';

/** The link before an account's first hashed consent. */
export const GENESIS = '0'.repeat(64);

/** What a consent carries into its hashes: every field it is stored with. */
export type Hashable = NewConsent;

const sha256 = (text: string) => digest('sha256', text, 'hex');

/** Random salts, one per consent, drawn in one call. */
export function salts(count: number): string[] {
  const bytes = randomBytes(16 * count).toString('hex');
  return Array.from({ length: count }, (_, i) => bytes.slice(32 * i, 32 * i + 32));
}

/**
 * The hash of the fields that erasure may clear. Salted, so that the hash kept after erasure
 * cannot be matched against a guessed user id or session id once the salt is gone.
 */
export function personalHash(salt: string, c: Pick<Hashable, 'session_id' | 'user_id' | 'ip_address' | 'user_agent' | 'url'>): string {
  return sha256(JSON.stringify([salt, c.session_id, c.user_id, c.ip_address, c.user_agent, c.url]));
}

/**
 * What a consent carries beyond the first seven fields, as one object, or nothing when it carries
 * none of it: consents recorded before these were kept hold none, and their links stay what they were.
 * - When any of country, region, mode and GPP string is set: those four keys (absent ones null).
 * - When the notice the visitor was shown is known: `notice_hash`.
 * Setting, clearing or changing any one of them changes the link.
 */
function optionalPart(c: Pick<Hashable, 'country' | 'region' | 'mode' | 'gpp_string' | 'notice_hash'>) {
  const { country = null, region = null, mode = null, gpp_string = null, notice_hash = null } = c;
  const regional = country !== null || region !== null || mode !== null || gpp_string !== null;
  if (!regional && notice_hash === null) return undefined;
  return { ...(regional && { country, region, mode, gpp_string }), ...(notice_hash !== null && { notice_hash }) };
}

/**
 * One link: SHA-256 over the previous link and the consent's canonical encoding, the array
 * `[id, account_id, seq, created_at, user_preferences, gpc, personal_hash]`, with an eighth item,
 * `{country, gpp_string, mode, region}` when any of those is set, and `notice_hash` in it when that is.
 */
export function linkHash(previous: string, seq: number, c: Omit<Hashable, 'session_id' | 'user_id' | 'ip_address' | 'user_agent' | 'url'>, personal: string): string {
  const fields: unknown[] = [c.id, c.account_id, seq, c.created_at.toISOString(), c.user_preferences, c.gpc, personal];
  const optional = optionalPart(c);
  if (optional) fields.push(optional);
  return sha256(`${previous}\n${canonical(fields)}`);
}

export interface Link {
  seq: number;
  hash: string;
  personal_hash: string;
  personal_salt: string;
}

/** Chains consents (in order) after the link `previous` at `seq`. */
export function chain(previous: { seq: number; hash: string }, consents: Hashable[], salt = salts(consents.length)): Link[] {
  let { seq, hash } = previous;
  return consents.map((c, i) => {
    const personal = personalHash(salt[i], c);
    seq += 1;
    hash = linkHash(hash, seq, c, personal);
    return { seq, hash, personal_hash: personal, personal_salt: salt[i] };
  });
}
