import {
  Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql,
  type CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult,
} from 'kysely';
import type { Config } from '../config.ts';
import { createDb, type Db } from './database.ts';
import type { Database } from './schema.ts';

/**
 * `ok`: reads that may be stale go to the replica. Otherwise they go to the primary: `starting`
 * before the first check, `lagging` past DATABASE_READ_MAX_LAG_S, `unreachable` when the replica does
 * not answer.
 */
export type ReplicaState = 'starting' | 'ok' | 'lagging' | 'unreachable';

export interface ReplicaStatus {
  state: ReplicaState;
  /** How stale the replica's data may be, in seconds (an upper bound, to the check interval); null when unknown. */
  lagS: number | null;
}

/** The reads that may be stale: the replica while it keeps up, else the primary. */
export interface ReadDatabase {
  db: Db;
  /** Undefined without DATABASE_READ_URL. */
  status(): ReplicaStatus | undefined;
  close(): Promise<void>;
}

/** A `pg_lsn` (`16/B374D848`) as a number of bytes. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/**
 * A read on the replica that the primary answers instead: the replica lost, refused or shutting down
 * (no SQLSTATE, a Node error code, class 08 or 57P), or the query cancelled by a conflict with replay
 * (40001). A mistake in the query fails the same way on either, and is not retried.
 */
export function replicaFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return true;
  return /^E[A-Z]/.test(code) || code.startsWith('08') || code.startsWith('57P') || code === '40001';
}

/** Rejects after `ms`: a replica that hangs counts as unreachable. */
function bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Measures the replica's staleness without trusting either server's clock: every check reads the
 * primary's WAL position (`pg_current_wal_lsn()`) and keeps it with the local time it was read; the
 * replica's replay position (`pg_last_wal_replay_lsn()`) then says which of those positions it has
 * replayed. The replica holds every commit made before the newest of them, so it is stale by at most
 * the time since that one was read: 0 when it has replayed the position just read. An idle primary
 * does not make a caught-up replica look old (as `now() - pg_last_xact_replay_timestamp()` would).
 * A server not in recovery (the primary itself, a promoted replica) counts as current.
 */
export class ReplicaMonitor {
  private samples: { at: number; lsn: bigint }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  state: ReplicaState = 'starting';
  lagMs: number | null = null;

  constructor(
    private readonly primary: Db,
    private readonly replica: Db,
    private readonly options: { maxLagMs: number; intervalMs: number; onChange?: (status: ReplicaStatus, error?: unknown) => void },
  ) {}

  /** The first check, then one every interval. */
  async start(): Promise<void> {
    await this.check();
    this.schedule();
  }

  status(): ReplicaStatus {
    return { state: this.state, lagS: this.lagMs === null ? null : Math.ceil(this.lagMs / 100) / 10 };
  }

  /** A read failed on the replica: its reads go to the primary until a check finds it back. */
  failed(error: unknown): void {
    this.set('unreachable', null, error);
  }

  async check(): Promise<void> {
    const timeout = Math.max(2_000, this.options.intervalMs * 2);
    try {
      const at = performance.now();
      const primary = await bounded(sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(this.primary.kysely), timeout)
        .then(({ rows }) => lsnValue(rows[0].lsn), () => undefined);
      if (primary !== undefined) this.samples.push({ at, lsn: primary });
      const { rows } = await bounded(
        sql<{ standby: boolean; lsn: string | null }>`select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as lsn`.execute(this.replica.kysely),
        timeout,
      );
      const { standby, lsn } = rows[0];
      if (!standby || lsn === null) {
        this.samples = this.samples.slice(-1);
        this.set('ok', 0);
        return;
      }
      const replayed = lsnValue(lsn);
      let newest = this.samples.length - 1;
      while (newest >= 0 && this.samples[newest].lsn > replayed) newest--;
      const now = performance.now();
      let lagMs: number;
      if (newest === -1) {
        // Behind every position kept: stale by more than the oldest one's age.
        lagMs = this.samples.length > 0 ? now - this.samples[0].at : 0;
      } else {
        lagMs = newest === this.samples.length - 1 && primary !== undefined ? 0 : now - this.samples[newest].at;
        this.samples = this.samples.slice(newest);
      }
      // Positions older than the limit decide nothing more: the replica is lagging either way.
      const keep = Math.ceil(this.options.maxLagMs / this.options.intervalMs) + 2;
      if (this.samples.length > keep) this.samples = this.samples.slice(-keep);
      this.set(lagMs > this.options.maxLagMs ? 'lagging' : 'ok', lagMs);
    } catch (error) {
      this.set('unreachable', null, error);
    }
  }

  private set(state: ReplicaState, lagMs: number | null, error?: unknown): void {
    const changed = state !== this.state;
    this.state = state;
    this.lagMs = lagMs;
    if (changed) this.options.onChange?.(this.status(), error);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.check().finally(() => this.schedule()), this.options.intervalMs);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }
}

/**
 * One Kysely for the reads that may be stale, each statement sent where `run` says: the routing is
 * per statement, so it holds no connection and takes no transaction (no route that reads from it
 * needs one).
 */
function routedKysely(run: <T>(work: (db: Db) => Promise<T>) => Promise<T>): Kysely<Database> {
  const connection: DatabaseConnection = {
    executeQuery: <R>(query: CompiledQuery) => run((db) => db.kysely.executeQuery(query) as Promise<QueryResult<R>>),
    // eslint-disable-next-line require-yield
    async *streamQuery() {
      throw new Error('reads routed to a replica are not streamed: read them in pages');
    },
  };
  const noTransaction = () => Promise.reject(new Error('reads routed to a replica take no transaction: use the primary'));
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: noTransaction,
    commitTransaction: noTransaction,
    rollbackTransaction: noTransaction,
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  const dialect: Dialect = {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => driver,
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db) => new PostgresIntrospector(db),
  };
  return new Kysely<Database>({ dialect });
}

/**
 * The database of the reads that may be stale. Without DATABASE_READ_URL: the primary itself. With
 * it: the replica while it answers and lags by at most DATABASE_READ_MAX_LAG_S, else the primary
 * (checked every second, and at once when a read on the replica fails for want of the replica: that
 * read is answered by the primary).
 */
export async function connectReads(
  config: Config, primary: Db, onChange?: (status: ReplicaStatus, error?: unknown) => void, intervalMs = 1_000,
): Promise<ReadDatabase> {
  if (!config.databaseReadUrl || primary.engine !== 'postgres') return { db: primary, status: () => undefined, close: async () => {} };
  const replica = createDb({ ...config, databaseUrl: config.databaseReadUrl });
  const monitor = new ReplicaMonitor(primary, replica, { maxLagMs: config.databaseReadMaxLagS * 1_000, intervalMs, onChange });
  const run = async <T>(work: (db: Db) => Promise<T>): Promise<T> => {
    if (monitor.state !== 'ok') return work(primary);
    try {
      return await work(replica);
    } catch (error) {
      if (!replicaFailure(error)) throw error;
      monitor.failed(error);
      return work(primary);
    }
  };
  await monitor.start();
  return {
    db: {
      kysely: routedKysely(run),
      engine: 'postgres',
      executePrepared: (query) => run((db) => db.executePrepared(query)),
      inTransaction: (work) => (monitor.state === 'ok' ? replica : primary).inTransaction(work),
      poolStats: () => replica.poolStats(),
      close: () => replica.close(),
    },
    status: () => monitor.status(),
    async close() {
      monitor.close();
      await replica.close();
    },
  };
}
