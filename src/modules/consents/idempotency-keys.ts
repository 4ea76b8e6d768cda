import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Executor } from '../../db/kysely.ts';

/**
 * Idempotency keys of consents: the widget's `idempotency_key`, the API's `Idempotency-Key`. A key is
 * stored in the statement that stores its consent (insertConsentBatch), unique per account; a consent
 * sent again with a stored key is answered with the first one (consent-writer.ts). Keys are kept at
 * least `KEY_HOURS` hours, then pruned.
 */
export const KEY_HOURS = 24;

/** An earlier consent that answers a key sent again. */
export interface EarlierConsent {
  id: string;
  created_at: Date;
}

/** The key's place in the maps: its account and itself. */
export const keyOf = (accountId: string, key: string) => `${accountId} ${key}`;

/** The consents stored under these keys (by `keyOf`); keys not stored are absent. */
export async function findConsentKeys(db: Executor, keys: { account_id: string; key: string }[]): Promise<Map<string, EarlierConsent>> {
  if (keys.length === 0) return new Map();
  const rows = await sql<{ account_id: string; key: string; consent_id: string; created_at: Date | string }>`
    select k.account_id, k.key, k.consent_id, k.created_at from consent_idempotency_keys k
    join unnest(${keys.map((k) => k.account_id)}::uuid[], ${keys.map((k) => k.key)}::text[]) as sent(account_id, key)
      on k.account_id = sent.account_id and k.key = sent.key`.execute(db);
  return new Map(rows.rows.map((row) => [keyOf(row.account_id, row.key), { id: row.consent_id, created_at: new Date(row.created_at) }]));
}

/** Removes up to `limit` keys older than `KEY_HOURS`; answers how many. */
export async function pruneConsentKeys(db: Executor, limit: number): Promise<number> {
  const result = await sql`delete from consent_idempotency_keys where (account_id, key) in (
      select account_id, key from consent_idempotency_keys where created_at < now() - make_interval(hours => ${KEY_HOURS}) limit ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Prunes expired keys every `intervalMs`, in statements of at most 10,000 rows; every instance does, harmlessly. */
export class KeyPruner {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly db: Kysely<Database>, intervalMs = 10 * 60_000) {
    this.timer = setInterval(() => void (this.running = this.prune()), intervalMs);
    this.timer.unref();
  }

  async prune(): Promise<void> {
    try {
      while ((await pruneConsentKeys(this.db, 10_000)) === 10_000);
    } catch {
      // The database is away: the next round prunes.
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
