import type { Kysely } from 'kysely';
import { AI_ACTOR, runAs } from '../../lib/actor-context.ts';
import type { Config } from '../../config.ts';
import type { Database, StorageItemRow } from '../../db/schema.ts';
import { loadClassifier, type Classifier } from '../../ai/classifier/classifier.ts';
import { textProviderFrom, type TextProvider } from '../../ai/providers.ts';
import { listProcessingItems } from '../storage-items/storage-items.service.ts';
import { workOn } from './classify-item.ts';

export interface WorkerLog {
  error(details: object, message: string): void;
}

interface Job {
  id: string;
  accountId: string;
}

/** pino's numbers for LOG_LEVEL's names: a line is written when its level is at least the configured one. */
const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

/** Warnings and errors as one JSON line on stderr, as the server logs them; nothing below LOG_LEVEL. */
export function stderrLog(level: string): WorkerLog & { warn(details: object, message: string): void } {
  const write = (severity: number, details: object, message: string) => {
    if (severity < (LEVELS[level] ?? LEVELS.info)) return;
    const err = (details as { err?: unknown }).err;
    const shown = err instanceof Error ? { type: err.name, message: err.message, stack: err.stack } : err;
    process.stderr.write(`${JSON.stringify({ level: severity, time: Date.now(), ...details, err: shown, msg: message })}\n`);
  };
  return {
    error: (details, message) => write(LEVELS.error, details, message),
    warn: (details, message) => write(LEVELS.warn, details, message),
  };
}

/**
 * The AI's background worker: a bounded in-process queue of storage items in `processing`, worked
 * on one at a time, never inside a request. The database is the durable queue: an item is marked
 * `processing` in the transaction that wrote it, and `resume` picks up every such item, at start
 * (after a crash) and whenever the queue was full and has drained. `close` takes no new items and
 * finishes the queued ones.
 */
export class AiWorker {
  private readonly queue: Job[] = [];
  private readonly queued = new Set<string>();
  private overflowed = false;
  private closed = false;
  private running: Promise<void> | undefined;
  private classifier: Classifier | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: { queueMax: number; text: TextProvider | undefined; log: WorkerLog },
  ) {}

  /** Items queued in memory for the AI (more may wait in the database when the queue overflowed). */
  get backlog(): number {
    return this.queue.length;
  }

  /** Queues every item left in `processing`, oldest first, as many as the queue holds. */
  async resume(): Promise<void> {
    const rows = await listProcessingItems(this.db, this.options.queueMax);
    for (const row of rows) this.enqueue({ id: row.id, accountId: row.account_id });
  }

  /** Hands over an item once the transaction that made it `processing` has committed. */
  submit(row: Pick<StorageItemRow, 'id' | 'account_id' | 'status'>): void {
    if (row.status === 'processing') this.enqueue({ id: row.id, accountId: row.account_id });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }

  private enqueue(job: Job): void {
    if (this.closed || this.queued.has(job.id)) return;
    if (this.queue.length >= this.options.queueMax) {
      this.overflowed = true;
      return;
    }
    this.queue.push(job);
    this.queued.add(job.id);
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      if (this.overflowed && !this.closed) {
        this.overflowed = false;
        this.resume().catch((err: unknown) => this.options.log.error({ err }, 'AI worker could not resume its items'));
      }
    });
  }

  private async drain(): Promise<void> {
    // Let the request that submitted the item answer before the first (and slowest) classification.
    await new Promise((resolve) => setImmediate(resolve));
    const { log, text } = this.options;
    while (this.queue.length > 0) {
      const job = this.queue.shift()!;
      try {
        const classifier = (this.classifier ??= loadClassifier());
        // What the AI changes is the AI's (the audit log's actor), whichever request handed the item over.
        await runAs(AI_ACTOR, () => workOn(
          { db: this.db, classifier, text, onTextError: (err) => log.error({ err, storageItemId: job.id }, 'AI text provider failed') },
          job.id,
          job.accountId,
        ));
      } catch (err) {
        // The item stays `processing`; the next resume takes it again.
        log.error({ err, storageItemId: job.id }, 'AI worker could not work on a storage item');
      } finally {
        this.queued.delete(job.id);
      }
    }
  }
}

export function createAiWorker(config: Config, db: Kysely<Database>): AiWorker {
  return new AiWorker(db, { queueMax: config.aiQueueMax, text: textProviderFrom(config), log: stderrLog(config.logLevel) });
}
