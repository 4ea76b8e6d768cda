import type { Executor } from '../../db/kysely.ts';
import { TtlMap } from '../../http/ttl-map.ts';

/**
 * Each account's category ids (and which are required), kept briefly in memory so that recording
 * a consent needs no extra query. An id not in the cached set reloads it at once (a category just
 * created is never refused); a deletion or a change of `required` shows within the lifetime.
 */
export class CategoryRules {
  /** Per account: category id → required. */
  private readonly accounts = new TtlMap<string, Map<string, boolean>>(2_000, 10_000);

  constructor(private readonly db: Executor) {}

  async of(accountId: string, ids: string[]): Promise<Map<string, boolean>> {
    const cached = this.accounts.get(accountId)?.value;
    if (cached && ids.every((id) => cached.has(id))) return cached;
    const rows = await this.db.selectFrom('categories').select(['id', 'required']).where('account_id', '=', accountId).execute();
    return this.accounts.set(accountId, new Map(rows.map((row) => [row.id, row.required])));
  }
}
