import type { Executor } from '../../db/kysely.ts';
import { isId } from '../../db/ids.ts';
import type { MaybePromise } from '../../lib/maybe-promise.ts';
import { TtlMap } from '../../lib/ttl-map.ts';
import { isLocalHost, originMatches } from '../../lib/hosts.ts';
import { findWidgetAccount, type WidgetAccount } from './widget.repository.ts';

/**
 * Accounts as the public widget sees them, cached briefly: every banner load and consent needs
 * the account's domains, and a change of domains may take this long to apply.
 */
export class WidgetAccounts {
  private readonly accounts = new TtlMap<string, WidgetAccount | undefined>(10_000, 10_000);

  constructor(private readonly db: Executor) {}

  /** The account at once when cached (the hot path spends no promise on it), else a promise of it. */
  get(id: string): MaybePromise<WidgetAccount | undefined> {
    if (!isId(id)) return undefined;
    const cached = this.accounts.get(id);
    if (cached) return cached.value;
    return findWidgetAccount(this.db, id).then((account) => this.accounts.set(id, account));
  }
}

/**
 * A page may use the banner when its origin is the account's domain (or its `www.` twin), a
 * subdomain of it, or an allowed domain; with `https_only`, only over https on the default port
 * (a local development host excepted).
 */
export function originAllowed(account: WidgetAccount, origin: string): boolean {
  let host: string;
  let url: URL;
  try {
    url = new URL(origin);
    host = url.hostname.toLowerCase();
  } catch {
    return false;
  }
  if (account.https_only && !isLocalHost(host) && (url.protocol !== 'https:' || url.port !== '')) return false;
  return (
    originMatches(host, account.domain) ||
    originMatches(host, `*.${account.domain}`) ||
    account.allowed_domains.some((domain) => originMatches(host, domain))
  );
}
