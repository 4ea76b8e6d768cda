import type { Executor } from '../db/kysely.ts';

export interface Membership {
  account_id: string;
  admin: boolean;
}

/**
 * Each user's memberships, kept in memory so that a user token on an account route costs no
 * database round trip. An account not in the cached list reloads it at once (a new membership is
 * never refused); a removal or a change of role is forgotten here and on every other instance
 * through `Services.forgetMemberships`; the lifetime bounds what a lost broadcast leaves behind.
 */
export class MembershipCache {
  private readonly users = new Map<string, { memberships: Membership[]; at: number }>();

  constructor(
    private readonly db: Executor,
    private readonly ttlMs = 30_000,
    private readonly maxUsers = 50_000,
  ) {}

  async of(userId: string, accountId?: string): Promise<Membership[]> {
    const cached = this.users.get(userId);
    const fresh = cached && Date.now() - cached.at < this.ttlMs;
    if (fresh && (accountId === undefined || cached.memberships.some((m) => m.account_id === accountId))) {
      return cached.memberships;
    }
    const memberships = await this.db
      .selectFrom('account_users')
      .select(['account_id', 'admin'])
      .where('user_id', '=', userId)
      .orderBy('account_id')
      .execute();
    if (this.users.size >= this.maxUsers) this.users.clear();
    this.users.set(userId, { memberships, at: Date.now() });
    return memberships;
  }

  forget(userId: string): void {
    this.users.delete(userId);
  }
}
