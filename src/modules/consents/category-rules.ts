import type { Executor } from '../../db/kysely.ts';

interface Rules {
  required: Map<string, boolean>;
  at: number;
}

/**
 * Each account's category ids (and which are required), kept briefly in memory so that recording
 * a consent needs no extra query. An id not in the cached set reloads it at once (a category just
 * created is never refused); a deletion or a change of `required` shows within the lifetime.
 */
export class CategoryRules {
  private readonly accounts = new Map<string, Rules>();

  constructor(
    private readonly db: Executor,
    private readonly ttlMs = 2_000,
    private readonly maxAccounts = 10_000,
  ) {}

  async of(accountId: string, ids: string[]): Promise<Map<string, boolean>> {
    const cached = this.accounts.get(accountId);
    const fresh = cached && Date.now() - cached.at < this.ttlMs;
    if (fresh && ids.every((id) => cached.required.has(id))) return cached.required;
    const rows = await this.db.selectFrom('categories').select(['id', 'required']).where('account_id', '=', accountId).execute();
    const rules = { required: new Map(rows.map((row) => [row.id, row.required])), at: Date.now() };
    if (this.accounts.size >= this.maxAccounts) this.accounts.clear();
    this.accounts.set(accountId, rules);
    return rules.required;
  }
}
