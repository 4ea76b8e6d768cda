import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { UnavailableError } from '../../http/app-errors.ts';
import { isDatabaseUnavailable } from '../../http/error-handler.ts';
import { visitCounting } from '../accounts/onboarding-facts.ts';
import type { NewConsent } from './consents.repository.ts';

interface Pending {
  consent: NewConsent;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface ConsentWriterOptions {
  /** Rows in one INSERT and one COMMIT. */
  maxBatch: number;
  /** Requests waiting for a batch; past this, new ones get 503 with Retry-After. */
  maxQueue: number;
  /** Batches committing at once (each on its own connection). */
  concurrency: number;
  /** Told the size of every batch taken from the queue (metrics). */
  onBatch?: (size: number) => void;
}

/**
 * Group commit for consents. Requests that arrive together share one multi-row INSERT and one
 * COMMIT, together with the account counters and visit statistics they update; each request is
 * answered only after its row is committed. When a batch fails, its rows are retried one by one
 * so that a bad row fails alone. The queue is bounded: when it is full, callers are told to retry.
 */
export class ConsentWriter {
  private readonly queue: Pending[] = [];
  private running = 0;
  /** Batches committed or failed whose callers are still being answered (or retried one by one). */
  private settling = 0;
  private closed = false;
  private idle: (() => void) | undefined;
  /** Accounts whose `code_installed_at` is known to be set: no need to write it again. */
  private readonly installed = new Set<string>();

  constructor(
    private readonly db: Pick<Db, 'kysely' | 'executePrepared'>,
    private readonly options: ConsentWriterOptions,
  ) {}

  write(consent: NewConsent): Promise<void> {
    if (this.closed) return Promise.reject(new UnavailableError('The server is shutting down', 1));
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(new UnavailableError('Too many consents waiting to be stored, please retry', 1));
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ consent, resolve, reject });
      this.pump();
    });
  }

  get pending(): number {
    return this.queue.length;
  }

  private pump(): void {
    while (this.running < this.options.concurrency && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.options.onBatch?.(batch.length);
      this.running++;
      void this.commit(batch);
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    let failure: { error: unknown } | undefined;
    try {
      await this.insert(batch.map((item) => item.consent));
    } catch (error) {
      failure = { error };
    }
    // The next batch goes to the database before this one's callers are answered: answering
    // takes the event loop a while, and the database would sit idle meanwhile. The query is
    // written to the socket a few promise turns after `pump`, hence one turn of the loop first.
    this.running--;
    this.settling++;
    this.pump();
    await new Promise((resolve) => setImmediate(resolve));
    try {
      if (!failure) for (const item of batch) item.resolve();
      else if (batch.length === 1 || isDatabaseUnavailable(failure.error)) for (const item of batch) item.reject(failure.error);
      else await this.oneByOne(batch);
    } finally {
      this.settling--;
      if (this.running === 0 && this.settling === 0 && this.queue.length === 0) this.idle?.();
    }
  }

  /** A batch failed: each row alone, so that the bad one fails and the others are stored. */
  private async oneByOne(batch: Pending[]): Promise<void> {
    for (const item of batch) {
      try {
        await this.insert([item.consent]);
        item.resolve();
      } catch (error) {
        item.reject(error);
      }
    }
  }

  /**
   * One statement, so one round trip and one implicit transaction: the rows (passed as arrays, so
   * the statement's text, and its plan, is the same for every batch size: prepared once per
   * connection), the account counters, the visit statistics and the first-install fact.
   */
  private async insert(consents: NewConsent[]): Promise<void> {
    const fresh = [...new Set(consents.map((c) => c.account_id))].filter((id) => !this.installed.has(id));
    const counts = perAccount(consents);
    const statement = sql`with ${visitCounting(consents.map((c) => ({ accountId: c.account_id, sessionId: c.session_id })))},
      inserted as (
        insert into consents (id, account_id, session_id, user_id, user_preferences, url, user_agent, ip_address, gpc, created_at)
        select * from unnest(
          ${consents.map((c) => c.id)}::uuid[], ${consents.map((c) => c.account_id)}::uuid[],
          ${consents.map((c) => c.session_id)}::text[], ${consents.map((c) => c.user_id)}::text[],
          ${consents.map((c) => JSON.stringify(c.user_preferences))}::jsonb[], ${consents.map((c) => c.url)}::text[],
          ${consents.map((c) => c.user_agent)}::text[], ${consents.map((c) => c.ip_address)}::text[],
          ${consents.map((c) => c.gpc)}::boolean[], ${consents.map((c) => c.created_at.toISOString())}::timestamptz[])
      ), counted as (
        insert into account_consent_counts (account_id, consents)
        select * from unnest(${counts.map(([id]) => id)}::uuid[], ${counts.map(([, n]) => n)}::bigint[])
        on conflict (account_id) do update set consents = account_consent_counts.consents + excluded.consents
      ), installed as (
        update accounts set code_installed_at = now() where id = any(${fresh}::uuid[]) and code_installed_at is null
      )
      select 1`;
    await this.db.executePrepared('consent_batch', statement.compile(this.db.kysely));
    for (const id of fresh) this.installed.add(id);
  }

  /** Stops taking consents and waits until every accepted one is committed or refused. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running === 0 && this.settling === 0 && this.queue.length === 0) return;
    await new Promise<void>((resolve) => (this.idle = resolve));
  }
}

/** Rows in account order, so that concurrent batches lock shared counter rows in the same order. */
function perAccount(consents: NewConsent[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const c of consents) counts.set(c.account_id, (counts.get(c.account_id) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1));
}
