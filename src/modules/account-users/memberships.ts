import type { Executor } from '../../db/kysely.ts';
import { TtlMap } from '../../lib/ttl-map.ts';

export interface Membership {
  account_id: string;
  admin: boolean;
}

/**
 * Each user's memberships, kept in memory so that a user token on an account route costs no
 * database round trip. An account not in the cached list reloads it at once (a new membership is
 * never refused); a removal or a change of role is forgotten here and on every other instance
 * through `forgetMemberships` (services.ts); the lifetime bounds what a lost broadcast leaves behind.
 */
export class MembershipCache {
  private readonly users = new TtlMap<string, Membership[]>(30_000, 50_000);

  constructor(private readonly db: Executor) {}

  async of(userId: string, accountId?: string): Promise<Membership[]> {
    const cached = this.users.get(userId)?.value;
    if (cached && (accountId === undefined || cached.some((m) => m.account_id === accountId))) return cached;
    const memberships = await this.db
      .selectFrom('account_users')
      .select(['account_id', 'admin'])
      .where('user_id', '=', userId)
      .orderBy('account_id')
      .execute();
    return this.users.set(userId, memberships);
  }

  forget(userId: string): void {
    this.users.forget(userId);
  }
}
