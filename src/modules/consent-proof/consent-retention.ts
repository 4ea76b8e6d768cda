import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { DAY_MS } from '../../lib/utc-period.ts';
import { accountsPastRetention, removeOldest } from './consent-proof.repository.ts';

/** Consents removed per transaction: short transactions, so that nothing waits long on them. */
const BATCH = 1_000;

/**
 * Removes consents older than their account's `consent_retention_days`, oldest first, in batches of
 * their own transactions. Each batch holds a PostgreSQL advisory lock on its account, so that
 * several instances running the job never remove the same rows; writers are never blocked (the
 * chain head is not touched: the anchor that verification starts from is a row of its own).
 */
export class RetentionJob {
  private readonly timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private closed = false;

  constructor(private readonly db: Kysely<Database>, intervalS: number, private readonly log?: FastifyBaseLogger) {
    if (intervalS > 0) {
      this.timer = setInterval(() => void this.run().catch((err) => this.log?.error({ err }, 'consent retention failed')), intervalS * 1000);
      this.timer.unref();
    }
  }

  /** One pass over every account; answers how many consents were removed. */
  run(now = new Date()): Promise<number> {
    this.running ??= this.pass(now).finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(now: Date): Promise<number> {
    let removed = 0;
    for (const account of await accountsPastRetention(this.db)) {
      const cutoff = new Date(now.getTime() - account.consent_retention_days * DAY_MS);
      for (;;) {
        if (this.closed) return removed;
        const batch = await this.db.transaction().execute((trx) => removeOldest(trx, account.id, cutoff, BATCH));
        if (!batch) break;
        removed += batch;
        if (batch < BATCH) break;
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => {});
  }
}
