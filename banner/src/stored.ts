import { domainsOf } from './clearing.ts';
import type { BannerConfig, BannerMode } from './config.ts';

declare const __CONSENTRY_CONFIG__: BannerConfig;

/**
 * The visitor's choice in a first-party cookie of the account's own, `consentry_<account id without
 * dashes>`, as vanilla-cookieconsent writes it (URI-encoded JSON, path `/`). A site on
 * `shop.example.com`, `www.shop.example.com` and other subdomains is one site: the choice is written
 * on the account's domain, so that every host reads and replaces the same cookie. The name is the
 * account's, so that two accounts on related domains (`www.example.com`, `shop.example.com`) never
 * read, replace or delete each other's choice. Copies written on a single host (by an older script,
 * or on a host outside the account's domain) are resolved by time: the newest choice wins, and the
 * others are deleted wherever the page can reach them.
 */
export const COOKIE = `consentry_${__CONSENTRY_CONFIG__.account.id.replace(/-/g, '')}`;
/**
 * The name scripts before 2026-11-28 wrote for every account: read when the account's own cookie is
 * missing, so that a returning visitor is not asked again, and never written or deleted.
 */
const LEGACY_COOKIE = 'consentry';

export interface StoredData {
  session_id?: string;
  consent_id?: string;
  /** The mode the choice was made under; older scripts knew only opt-in and left it out. */
  mode?: BannerMode;
  /** The browser sent Global Privacy Control when the choice was made. */
  gpc?: boolean;
}

export interface StoredCookie {
  categories?: string[];
  revision?: number;
  expirationTime?: number;
  consentTimestamp?: string;
  lastConsentTimestamp?: string;
  data?: StoredData | null;
}

interface Copy {
  raw: string;
  value: StoredCookie;
}

function copies(name = COOKIE): Copy[] {
  const found: Copy[] = [];
  for (const pair of document.cookie.split(';').map((p) => p.trim())) {
    if (!pair.startsWith(`${name}=`)) continue;
    const raw = pair.slice(name.length + 1);
    try {
      const value = JSON.parse(decodeURIComponent(raw));
      if (value && typeof value === 'object') found.push({ raw, value });
    } catch {
      // not a choice this script can read: the newest readable one decides
    }
  }
  return found;
}

/** When the choice was last made (the library's lastConsentTimestamp), for ordering copies. */
function madeAt(value: StoredCookie): number {
  const time = Date.parse(value.lastConsentTimestamp ?? value.consentTimestamp ?? '');
  return Number.isNaN(time) ? -Infinity : time;
}

/** A single-label host or an IP address: a cookie there is host-only (a Domain of an IP is stored so too). */
const hostOnly = () => !location.hostname.includes('.') || /^[\d.]+$/.test(location.hostname);

function write(pair: string, domain: string | undefined, attributes: string): void {
  // As the library does: a dotted host's cookie names its domain, a single-label host's is host-only.
  document.cookie = `${pair}; Path=/${attributes}` + (hostOnly() ? '' : `; Domain=${domain ?? location.hostname}`);
}

/** Deletes the copies on the host (host-only) and on each parent domain, except the one on `keep`. */
function eraseCopies(keep: string | null): void {
  for (const domain of domainsOf(location.hostname)) {
    const own = domain ? domain === keep : keep !== null && hostOnly();
    if (own) continue;
    document.cookie = `${COOKIE}=; Path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT; max-age=0` + (domain ? `; Domain=${domain}` : '');
  }
}

/**
 * The account's domain (without `www.` or `*.`) when the page is on it or under it and the browser
 * takes a cookie there; else undefined, and the choice is kept on the page's host.
 */
export function cookieDomain(accountDomain: string | undefined): string | undefined {
  const host = location.hostname.toLowerCase();
  const site = (accountDomain ?? '').toLowerCase().replace(/^\*\./, '').replace(/^www\./, '');
  if (!site || hostOnly() || (host !== site && !host.endsWith(`.${site}`))) return undefined;
  // A domain the browser refuses (a public suffix) would lose every choice: try it first.
  const probe = `${COOKIE}_probe`;
  document.cookie = `${probe}=1; Path=/; Domain=${site}`;
  const taken = document.cookie.split(';').some((pair) => pair.trim() === `${probe}=1`);
  document.cookie = `${probe}=; Path=/; Domain=${site}; max-age=0`;
  return taken ? site : undefined;
}

const newestOf = (all: Copy[]): Copy | undefined =>
  all.reduce<Copy | undefined>((best, copy) => (!best || madeAt(copy.value) > madeAt(best.value) ? copy : best), undefined);

/** The account's own copies, or else the copies an older script left under the shared name. */
const readable = (): Copy[] => {
  const own = copies();
  return own.length > 0 ? own : copies(LEGACY_COOKIE);
};

/** The newest choice the page can see (the first when none says when it was made). */
export function storedChoice(): StoredCookie | undefined {
  return newestOf(readable())?.value;
}

/**
 * With several copies, keeps the newest alone, on `domain`: the library reads the first copy the
 * browser lists, which is the oldest of those with the same path. A choice found only under the
 * shared name of older scripts is copied to the account's own cookie, which the library reads.
 */
export function keepNewestCopy(domain: string | undefined, secure: boolean): void {
  const own = copies();
  const all = readable();
  if (own.length === 1 || all.length === 0) return;
  const newest = newestOf(all)!;
  if (own.length > 1) eraseCopies(null);
  const expires = typeof newest.value.expirationTime === 'number' ? `; expires=${new Date(newest.value.expirationTime).toUTCString()}` : '';
  write(`${COOKIE}=${newest.raw}`, domain, `${expires}; SameSite=Lax${secure ? '; Secure' : ''}`);
}

/** Deletes every copy of the account's own cookie: the library then finds no choice. */
export function eraseChoice(): void {
  eraseCopies(null);
}

/** After a choice is written on `domain`: deletes the copies elsewhere, which would be read first. */
export function eraseOtherCopies(domain: string | undefined): void {
  eraseCopies(domain ?? location.hostname);
}
