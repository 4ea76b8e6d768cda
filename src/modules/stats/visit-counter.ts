import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { HyperLogLog } from '../../lib/hyperloglog.ts';
import { utcDay } from '../../lib/utc-period.ts';
import { markCodeInstalled } from '../accounts/accounts.service.ts';
import { recordVisits, setDailyVisitors, type VisitTally } from './stats.repository.ts';
import { existingAccounts, mergeSketches } from './stats.repository.ts';

interface Tally {
  pageviews: number;
  sessions: Set<string>;
  /** The sessions among `sessions` that chose (a consent was recorded for them). */
  choosers: Set<string>;
}

export interface VisitCounterOptions {
  /** How often the counts go to the database. */
  flushIntervalMs: number;
  /** Distinct sessions held in memory before a flush is started early. */
  maxSessions: number;
}

/**
 * While flushes fail (the database is down), counts are kept for the next one. Past this many
 * times `maxSessions` held sessions, new sessions count as pageviews only, so that a long outage
 * cannot exhaust memory: visitors are lost then, never pageviews.
 */
const HELD_SESSIONS_FACTOR = 4;

/**
 * Pageviews and visitors counted in memory and written in batches: a banner load costs no database
 * write. Every `flushIntervalMs` (and on close) one transaction per day adds the pageviews, the
 * account's most recent sessions (for the onboarding status), the visitor and chooser sketches of
 * the day, its week and its month (and the day's visitors and choosers as they count them), and the
 * first-install fact. A crash loses what was counted since the last flush.
 */
export class VisitCounter {
  private days = new Map<string, Map<string, Tally>>();
  private sessions = 0;
  /** Sessions not remembered since the last warning, because too many were held. */
  private dropped = 0;
  /** An early flush (too many sessions held) is under way: one at a time, not one per pageview. */
  private flushingEarly = false;
  private flushing: Promise<void> = Promise.resolve();
  /** A flush waiting for the one before it to end, not yet started. */
  private queued: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  /** Accounts whose install is already stored. */
  private readonly installed = new Set<string>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: VisitCounterOptions,
    private readonly log?: FastifyBaseLogger,
  ) {
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs);
    this.timer.unref();
  }

  /** One pageview of the account, by the session when known; `chose` when it recorded the session's consent. */
  count(accountId: string, sessionId?: string, at = new Date(), chose = false): void {
    const sessions = sessionId ? [sessionId] : [];
    this.add(utcDay(at), accountId, 1, sessions, chose ? sessions : []);
    if (this.sessions >= this.options.maxSessions && !this.flushingEarly) {
      this.flushingEarly = true;
      void this.flush().finally(() => (this.flushingEarly = false));
    }
  }

  private add(day: string, accountId: string, pageviews: number, sessions: Iterable<string>, choosers: Iterable<string>): void {
    let accounts = this.days.get(day);
    if (!accounts) this.days.set(day, (accounts = new Map()));
    let tally = accounts.get(accountId);
    if (!tally) accounts.set(accountId, (tally = { pageviews: 0, sessions: new Set(), choosers: new Set() }));
    tally.pageviews += pageviews;
    for (const session of sessions) {
      if (tally.sessions.has(session)) continue;
      if (this.sessions >= this.options.maxSessions * HELD_SESSIONS_FACTOR) {
        this.dropped++;
        continue;
      }
      tally.sessions.add(session);
      this.sessions++;
    }
    // A chooser is one of the visitors held: one dropped as a visitor is dropped as a chooser too.
    for (const session of choosers) if (tally.sessions.has(session)) tally.choosers.add(session);
  }

  /**
   * Resolves once what was counted so far is written: a flush when anything is held, else the one
   * under way. Reads of the onboarding status wait for it, so a client that just recorded its
   * tenth visitor reads `live` without waiting for the next timed flush.
   */
  written(): Promise<void> {
    return this.days.size > 0 ? this.flush() : this.flushing;
  }

  /**
   * Writes what was counted so far; flushes run one after the other. Callers while a flush waits
   * for its turn share it (it writes everything counted until it starts): many reads at once
   * queue one write, not one each.
   */
  flush(): Promise<void> {
    if (!this.queued) {
      this.queued = this.flushing = this.flushing.then(() => {
        this.queued = undefined;
        return this.write();
      });
    }
    return this.queued;
  }

  private async write(): Promise<void> {
    if (this.dropped > 0) {
      this.log?.warn({ sessions: this.dropped }, 'visit counts held too long: these sessions were counted as pageviews only');
      this.dropped = 0;
    }
    if (this.days.size === 0) return;
    const days = this.days;
    this.days = new Map();
    this.sessions = 0;
    for (const [day, accounts] of days) {
      try {
        await this.writeDay(day, accounts);
      } catch (error) {
        this.log?.error({ err: error }, 'visit counts could not be stored; kept for the next flush');
        this.putBack(day, accounts);
      }
    }
  }

  private async writeDay(day: string, accounts: Map<string, Tally>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // Accounts deleted since their visits were counted are left out (and locked against deletion meanwhile).
      const live = await existingAccounts(trx, [...accounts.keys()]);
      const tallies: (VisitTally & { choosers: Set<string> })[] = [...accounts]
        .filter(([accountId]) => live.has(accountId))
        .map(([accountId, tally]) => ({ accountId, pageviews: tally.pageviews, sessions: [...tally.sessions], choosers: tally.choosers }));
      if (tallies.length === 0) return;
      await recordVisits(trx, day, tallies);
      const daily = await mergeSketches(trx, tallies.filter((t) => t.sessions.length > 0).map((t) => {
        const sketch = new HyperLogLog();
        const choosers = new HyperLogLog();
        for (const session of t.sessions) sketch.add(session);
        for (const session of t.choosers) choosers.add(session);
        return { accountId: t.accountId, day, sketch, choosers };
      }));
      await setDailyVisitors(trx, day, daily);
      await markCodeInstalled(trx, tallies.map((t) => t.accountId).filter((id) => !this.installed.has(id)));
    });
    for (const accountId of accounts.keys()) this.installed.add(accountId);
  }

  /** A failed write keeps its counts for the next flush. */
  private putBack(day: string, accounts: Map<string, Tally>): void {
    for (const [accountId, tally] of accounts) this.add(day, accountId, tally.pageviews, tally.sessions, tally.choosers);
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
