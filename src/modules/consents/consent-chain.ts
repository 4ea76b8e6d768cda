import { hash as digest, randomBytes } from 'node:crypto';
import type { NewConsent } from './consents.repository.ts';

/** The link before an account's first hashed consent. */
export const GENESIS = '0'.repeat(64);

/** What a consent carries into its hashes: every field it is stored with. */
export type Hashable = NewConsent;

const sha256 = (text: string) => digest('sha256', text, 'hex');

/** JSON with every object's keys sorted, so that jsonb's reordering of keys changes nothing. */
function canonical(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonical(value[i]);
    return `${out}]`;
  }
  if (value !== null && typeof value === 'object') {
    // Sorted by UTF-16 code units, as `<` compares strings.
    const keys = Object.keys(value).sort();
    let out = '{';
    for (let i = 0; i < keys.length; i++) {
      out += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${canonical((value as Record<string, unknown>)[keys[i]])}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value);
}

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
 * A consent's country, region, mode and GPP string as one object, or nothing when none of them is
 * set: consents recorded before they were kept hold none, and their links stay what they were.
 * Setting, clearing or changing any one of them changes the link.
 */
function regionalPart(c: Pick<Hashable, 'country' | 'region' | 'mode' | 'gpp_string'>) {
  const { country = null, region = null, mode = null, gpp_string = null } = c;
  if (country === null && region === null && mode === null && gpp_string === null) return undefined;
  return { country, region, mode, gpp_string };
}

/**
 * A consent's TC string and AC string as one object, or nothing when neither is set: consents
 * recorded before they were kept (and those without TCF) hold none, and their links stay what they were.
 */
function tcfPart(c: Pick<Hashable, 'tc_string' | 'ac_string'>) {
  const { tc_string = null, ac_string = null } = c;
  if (tc_string === null && ac_string === null) return undefined;
  return { ac_string, tc_string };
}

/**
 * One link: SHA-256 over the previous link and the consent's canonical encoding, the array
 * `[id, account_id, seq, created_at, user_preferences, gpc, personal_hash]`, followed by
 * `{country, gpp_string, mode, region}` when any of those is set, then by `{ac_string, tc_string}`
 * when either of those is (the two objects' keys tell them apart).
 */
export function linkHash(previous: string, seq: number, c: Omit<Hashable, 'session_id' | 'user_id' | 'ip_address' | 'user_agent' | 'url'>, personal: string): string {
  const fields: unknown[] = [c.id, c.account_id, seq, c.created_at.toISOString(), c.user_preferences, c.gpc, personal];
  const regional = regionalPart(c);
  if (regional) fields.push(regional);
  const tcf = tcfPart(c);
  if (tcf) fields.push(tcf);
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
