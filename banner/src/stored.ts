import { domainsOf } from './clearing.ts';

/**
 * The visitor's choice in the first-party cookie `consentry`, as vanilla-cookieconsent writes it
 * (URI-encoded JSON, path `/`). A site on `shop.example.com`, `www.shop.example.com` and other
 * subdomains is one site: the choice is written on the account's domain, so that every host reads
 * and replaces the same cookie. Copies written on a single host (by an older script, or on a host
 * outside the account's domain) are resolved by time: the newest choice wins, and the others are
 * deleted wherever the page can reach them.
 */
export const COOKIE = 'consentry';

export interface StoredData {
  session_id?: string;
  consent_id?: string;
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

function copies(): Copy[] {
  const found: Copy[] = [];
  for (const pair of document.cookie.split(';').map((p) => p.trim())) {
    if (!pair.startsWith(`${COOKIE}=`)) continue;
    const raw = pair.slice(COOKIE.length + 1);
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

const hasDots = () => location.hostname.includes('.');

function write(pair: string, domain: string | undefined, attributes: string): void {
  // As the library does: a dotted host's cookie names its domain, a single-label host's is host-only.
  document.cookie = `${pair}; Path=/${attributes}` + (hasDots() ? `; Domain=${domain ?? location.hostname}` : '');
}

/** Deletes the copies on the host (host-only) and on each parent domain, except the one on `keep`. */
function eraseCopies(keep: string | null): void {
  for (const domain of domainsOf(location.hostname)) {
    const own = domain ? domain === keep : keep !== null && !hasDots();
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
  if (!site || !hasDots() || /^[\d.]+$/.test(host) || (host !== site && !host.endsWith(`.${site}`))) return undefined;
  // A domain the browser refuses (a public suffix) would lose every choice: try it first.
  const probe = `${COOKIE}_probe`;
  document.cookie = `${probe}=1; Path=/; Domain=${site}`;
  const taken = document.cookie.split(';').some((pair) => pair.trim() === `${probe}=1`);
  document.cookie = `${probe}=; Path=/; Domain=${site}; max-age=0`;
  return taken ? site : undefined;
}

/** The newest choice the page can see (the first when none says when it was made). */
export function storedChoice(): StoredCookie | undefined {
  let newest: Copy | undefined;
  for (const copy of copies()) if (!newest || madeAt(copy.value) > madeAt(newest.value)) newest = copy;
  return newest?.value;
}

/**
 * With several copies, keeps the newest alone, on `domain`: the library reads the first copy the
 * browser lists, which is the oldest of those with the same path.
 */
export function keepNewestCopy(domain: string | undefined, secure: boolean): void {
  const all = copies();
  if (all.length < 2) return;
  const newest = all.reduce((best, copy) => (madeAt(copy.value) > madeAt(best.value) ? copy : best));
  eraseCopies(null);
  const expires = typeof newest.value.expirationTime === 'number' ? `; expires=${new Date(newest.value.expirationTime).toUTCString()}` : '';
  write(`${COOKIE}=${newest.raw}`, domain, `${expires}; SameSite=Lax${secure ? '; Secure' : ''}`);
}

/** After a choice is written on `domain`: deletes the copies elsewhere, which would be read first. */
export function eraseOtherCopies(domain: string | undefined): void {
  eraseCopies(domain ?? location.hostname);
}
