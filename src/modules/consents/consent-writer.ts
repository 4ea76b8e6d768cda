import type { Db } from '../../db/database.ts';
import { UnavailableError } from '../../http/app-errors.ts';
import { isDatabaseUnavailable } from '../../db/outage.ts';
import { utcDay, utcHour } from '../../lib/utc-period.ts';
import { chain, GENESIS } from './consent-chain.ts';
import {
  insertConsentBatch,
  lockChainHeads,
  readChainHeads,
  type CategoryRollup,
  type ChainedConsent,
  type CountryModeRollup,
  type DailyRollup,
  type Head,
  type HourlyCount,
  type NewConsent,
  type TcfPurposeRollup,
} from './consents.repository.ts';
import { tcPurposes } from './tc-string.ts';

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
  /** Told of every round in which another writer had moved the head of some of the round's accounts. */
  onLostRace?: () => void;
}


/** Where committed consents are counted as a pageview and a visitor. */
export interface VisitSink {
  count(accountId: string, sessionId?: string, at?: Date, chose?: boolean): void;
}

/** Accounts whose chain head is remembered; past this the memory is cleared (and heads read again). */
const MAX_HEADS = 100_000;
/** Rounds of a batch whose chain heads other writers keep moving before it gives up. */
const MAX_CHAIN_ROUNDS = 20;
/** How long an account whose head another writer moved is chained under a lock on its head. */
const CONTENDED_MS = 10_000;

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
  /**
   * Each account's chain head as this writer last stored it (or is storing it). The database's head
   * row decides: a batch whose expected head is stale (another instance wrote) is chained again.
   */
  private readonly heads = new Map<string, Head>();
  /** Accounts whose head another writer moved, and until when their rounds lock it first. */
  private readonly racedUntil = new Map<string, number>();

  constructor(
    private readonly db: Pick<Db, 'kysely' | 'executePrepared' | 'inTransaction'>,
    private readonly options: ConsentWriterOptions,
    private readonly visits?: VisitSink,
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
      await this.insert(batch.map((item) => item.consent), batch);
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
      if (!failure) for (const item of batch) this.stored(item);
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
        this.stored(item);
      } catch (error) {
        item.reject(error);
      }
    }
  }

  /** A committed consent counts a pageview and a visitor who chose; its caller is answered. */
  private stored(item: Pending): void {
    this.visits?.count(item.consent.account_id, item.consent.session_id, item.consent.created_at, true);
    item.resolve();
  }

  /**
   * Chains the consents after their accounts' heads and stores them. A round is one statement;
   * only when another writer moved an account's head meanwhile are that account's consents chained
   * again, in another round. From then on, for `CONTENDED_MS`, that account's rounds lock its head
   * first: two instances recording for one account then take turns instead of losing races (two
   * processes recording for one account had halved its rate).
   */
  private async insert(consents: NewConsent[], batch?: Pending[]): Promise<void> {
    let remaining = consents;
    for (let round = 0; remaining.length > 0; round++) {
      if (round === MAX_CHAIN_ROUNDS) throw new UnavailableError('The consent chain is too busy, please retry', 1);
      const advanced = this.contended(remaining) ? await this.insertLocked(remaining, batch) : await this.insertOptimistic(remaining);
      remaining = remaining.filter((c) => !advanced.has(c.account_id));
      if (remaining.length === 0) break;
      this.options.onLostRace?.();
      if (this.racedUntil.size + remaining.length > MAX_HEADS) this.racedUntil.clear();
      for (const c of remaining) this.racedUntil.set(c.account_id, Date.now() + CONTENDED_MS);
    }
  }

  /** Whether another writer recently moved the head of one of these consents' accounts. */
  private contended(consents: NewConsent[]): boolean {
    if (this.racedUntil.size === 0) return false;
    const now = Date.now();
    return consents.some((c) => (this.racedUntil.get(c.account_id) ?? 0) > now);
  }

  /** One round on the heads this writer remembers (reading those it does not know). */
  private async insertOptimistic(consents: NewConsent[]): Promise<Set<string>> {
    const accounts = accountsOf(consents).filter((id) => !this.heads.has(id));
    if (accounts.length > 0) {
      if (this.heads.size + accounts.length > MAX_HEADS) this.heads.clear();
      this.remember(accounts, await readChainHeads(this.db.kysely, accounts));
    }
    return this.insertRound(consents, this.db);
  }

  /**
   * One round in a transaction that first locks the accounts' heads: no other writer can move
   * them before this round's rows are stored. Four round trips instead of one, so only where
   * writers collide. (An account without a head has no row to lock; its first round can still lose.)
   */
  private async insertLocked(consents: NewConsent[], batch?: Pending[]): Promise<Set<string>> {
    const accounts = accountsOf(consents);
    try {
      return await this.db.inTransaction(async (execute) => {
        this.remember(accounts, await lockChainHeads(this.db, execute, accounts));
        // What queued up for these accounts while the lock was awaited joins this round (and is
        // answered with the batch): each turn holds the head for one round whatever its size.
        if (batch) {
          for (const item of this.takeQueued(new Set(accounts), this.options.maxBatch - batch.length)) {
            batch.push(item);
            consents.push(item.consent);
          }
        }
        return this.insertRound(consents, { kysely: this.db.kysely, executePrepared: execute });
      });
    } catch (error) {
      // Not committed (the COMMIT itself may have failed): the heads remembered are not stored.
      for (const id of accounts) this.heads.delete(id);
      throw error;
    }
  }

  /** The heads read for these accounts; an account without one starts from the genesis link. */
  private remember(accounts: string[], read: Map<string, Head>): void {
    for (const id of accounts) this.heads.set(id, read.get(id) ?? { seq: 0, hash: GENESIS });
  }

  /** Takes up to `room` queued consents of these accounts out of the queue, in their order. */
  private takeQueued(accounts: Set<string>, room: number): Pending[] {
    const taken: Pending[] = [];
    const kept: Pending[] = [];
    for (const item of this.queue) {
      if (taken.length < room && accounts.has(item.consent.account_id)) taken.push(item);
      else kept.push(item);
    }
    if (taken.length > 0) this.queue.splice(0, this.queue.length, ...kept);
    return taken;
  }

  /**
   * Chains each account's consents on its head, then stores them all in one statement
   * (`insertConsentBatch`); answers the accounts whose rows were stored.
   */
  private async insertRound(consents: NewConsent[], db: Pick<Db, 'kysely' | 'executePrepared'>): Promise<Set<string>> {
    const byAccount = new Map<string, NewConsent[]>();
    for (const c of consents) {
      const list = byAccount.get(c.account_id);
      if (list) list.push(c);
      else byAccount.set(c.account_id, [c]);
    }
    const accounts = [...byAccount.keys()].sort();
    const expected = accounts.map((id) => this.heads.get(id)!);
    const rows: ChainedConsent[] = [];
    const heads: Head[] = [];
    for (const [i, id] of accounts.entries()) {
      const list = byAccount.get(id)!;
      const links = chain(expected[i], list);
      // Object.assign, not a spread: spreading the consent cost ~3% of the server's time per consent.
      list.forEach((c, j) => rows.push(Object.assign({}, c, links[j])));
      const last = links.at(-1)!;
      heads.push({ seq: last.seq, hash: last.hash });
      // The next batch chains on this one at once; if this one is not stored, its round reloads the head.
      this.heads.set(id, { seq: last.seq, hash: last.hash });
    }
    const daily = dailyRollup(rows);
    const choices = categoryRollup(rows);
    const hourly = hourlyRollup(rows);
    const places = countryModeRollup(rows);
    const purposes = tcfPurposeRollup(rows);
    const fresh = accounts.filter((id) => !this.installed.has(id));
    let stored: Set<string>;
    try {
      stored = await insertConsentBatch(db, { accounts, expected, heads, rows, daily, hourly, choices, places, purposes, fresh });
    } catch (error) {
      for (const id of accounts) this.heads.delete(id);
      throw error;
    }
    for (const id of accounts) if (!stored.has(id)) this.heads.delete(id);
    for (const id of fresh) if (stored.has(id)) this.installed.add(id);
    return stored;
  }

  /** Stops taking consents and waits until every accepted one is committed or refused. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running === 0 && this.settling === 0 && this.queue.length === 0) return;
    await new Promise<void>((resolve) => (this.idle = resolve));
  }
}

/** The accounts these consents belong to, each once. */
const accountsOf = (consents: NewConsent[]) => [...new Set(consents.map((c) => c.account_id))];

/**
 * Rollup entries by key (`account day`, `account hour`, `account day category`), each made on its
 * first row, answered in key order: the order the rows' locks are taken in.
 */
class Rollup<E> {
  private readonly entries = new Map<string, E>();

  at(key: string, make: () => E): E {
    let entry = this.entries.get(key);
    if (!entry) this.entries.set(key, (entry = make()));
    return entry;
  }

  inKeyOrder(): E[] {
    return [...this.entries.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, entry]) => entry);
  }
}

/** Per account and UTC day: consents by accept type, GPC, and the day's last link. */
function dailyRollup(rows: ChainedConsent[]): DailyRollup[] {
  const days = new Rollup<DailyRollup>();
  for (const c of rows) {
    const day = utcDay(c.created_at);
    const d = days.at(`${c.account_id} ${day}`, () =>
      ({ account_id: c.account_id, day, consents: 0, all: 0, custom: 0, necessary: 0, gpc: 0, head_seq: 0, head_id: c.id, head_hash: c.hash }));
    d.consents++;
    d[c.user_preferences.accept_type]++;
    if (c.gpc) d.gpc++;
    if (c.seq > d.head_seq) Object.assign(d, { head_seq: c.seq, head_id: c.id, head_hash: c.hash });
  }
  return days.inKeyOrder();
}

/** Per account and UTC hour: how many consents. */
function hourlyRollup(rows: ChainedConsent[]): HourlyCount[] {
  const hours = new Rollup<HourlyCount>();
  for (const c of rows) {
    const hour = utcHour(c.created_at);
    hours.at(`${c.account_id} ${hour}`, () => ({ account_id: c.account_id, hour, consents: 0 })).consents++;
  }
  return hours.inKeyOrder();
}

/** Per account, UTC day and category: how often it was accepted and rejected. */
function categoryRollup(rows: ChainedConsent[]): CategoryRollup[] {
  const counts = new Rollup<CategoryRollup>();
  const add = (c: ChainedConsent, day: string, categoryId: string, field: 'accepted' | 'rejected') =>
    counts.at(`${c.account_id} ${day} ${categoryId}`, () => ({ account_id: c.account_id, day, category_id: categoryId, accepted: 0, rejected: 0 }))[field]++;
  for (const c of rows) {
    const day = utcDay(c.created_at);
    for (const id of c.user_preferences.accepted_categories) add(c, day, id, 'accepted');
    for (const id of c.user_preferences.rejected_categories) add(c, day, id, 'rejected');
  }
  return counts.inKeyOrder();
}

/**
 * Per account, UTC day and TCF purpose, from the TC strings decoded (remembered from their check
 * when recorded): consents given and legitimate interests standing; purpose 0 counts the strings.
 * In key order, as the rows' locks are taken in it.
 */
function tcfPurposeRollup(rows: ChainedConsent[]): TcfPurposeRollup[] {
  const counts = new Map<string, TcfPurposeRollup>();
  const at = (c: ChainedConsent, day: string, purpose: number) => {
    const key = `${c.account_id} ${day} ${String(purpose).padStart(2, '0')}`;
    let entry = counts.get(key);
    if (!entry) counts.set(key, (entry = { account_id: c.account_id, day, purpose, consents: 0, legitimate_interests: 0 }));
    return entry;
  };
  for (const c of rows) {
    if (!c.tc_string) continue;
    const decoded = tcPurposes(c.tc_string);
    if (!decoded) continue;
    const day = utcDay(c.created_at);
    at(c, day, 0).consents++;
    for (const purpose of decoded.consents) at(c, day, purpose).consents++;
    for (const purpose of decoded.legitimateInterests) at(c, day, purpose).legitimate_interests++;
  }
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, entry]) => entry);
}

/**
 * Per account, UTC day, country and mode: consents by accept type, the opt-outs (in `opt-out` mode,
 * a category rejected: required ones never are) and GPC (in key order, as the rows' locks are taken in it).
 */
function countryModeRollup(rows: ChainedConsent[]): CountryModeRollup[] {
  const counts = new Map<string, CountryModeRollup>();
  for (const c of rows) {
    const day = utcDay(c.created_at);
    const country = c.country ?? '';
    const mode = c.mode ?? '';
    const key = `${c.account_id} ${day} ${country} ${mode}`;
    let entry = counts.get(key);
    if (!entry) counts.set(key, (entry = { account_id: c.account_id, day, country, mode, consents: 0, all: 0, custom: 0, necessary: 0, opt_outs: 0, gpc: 0 }));
    entry.consents++;
    entry[c.user_preferences.accept_type]++;
    if (mode === 'opt-out' && c.user_preferences.rejected_categories.length > 0) entry.opt_outs++;
    if (c.gpc) entry.gpc++;
  }
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, entry]) => entry);
}
