import type { Executor } from '../../db/kysely.ts';
import { isId } from '../../db/ids.ts';
import { originMatches } from '../accounts/domains.ts';
import { findWidgetAccount, type WidgetAccount } from './widget.repository.ts';

/**
 * Accounts as the public widget sees them, cached briefly: every banner load and consent needs
 * the account's domains, and a change of domains may take this long to apply.
 */
export class WidgetAccounts {
  private readonly entries = new Map<string, { account: WidgetAccount | undefined; at: number }>();

  constructor(
    private readonly db: Executor,
    private readonly ttlMs = 10_000,
    private readonly maxEntries = 10_000,
  ) {}

  async get(id: string): Promise<WidgetAccount | undefined> {
    if (!isId(id)) return undefined;
    const now = Date.now();
    const cached = this.entries.get(id);
    if (cached && now - cached.at < this.ttlMs) return cached.account;
    const account = await findWidgetAccount(this.db, id);
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(id, { account, at: now });
    return account;
  }
}

/** A page may use the banner when its origin is the account's domain, a subdomain of it, or an allowed domain. */
export function originAllowed(account: WidgetAccount, origin: string): boolean {
  let host: string;
  try {
    host = new URL(origin).hostname.toLowerCase();
  } catch {
    return false;
  }
  return (
    originMatches(host, account.domain) ||
    originMatches(host, `*.${account.domain}`) ||
    account.allowed_domains.some((domain) => originMatches(host, domain))
  );
}
