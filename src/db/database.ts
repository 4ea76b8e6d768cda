import { hash } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, sql, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { OwnSchemaPostgresDialect } from './own-schema-dialect.ts';
import { migrationProvider } from './migrations/index.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import type { Database } from './schema.ts';

export type Engine = 'embedded' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  engine: Engine;
  /**
   * Runs a statement of a hot path as a prepared statement on PostgreSQL, named by its text: parsed
   * and planned once per connection for each text, not on every call. Only for statements whose
   * texts are few (values go in parameters), and whose generic plan is as good as a plan for values.
   */
  executePrepared<R = unknown>(query: CompiledQuery): Promise<R[]>;
  /**
   * Runs `work` in one transaction on one connection; its statements run as `executePrepared`'s do.
   * Committed when `work` resolves, rolled back when it throws.
   */
  inTransaction<T>(work: (execute: Db['executePrepared']) => Promise<T>): Promise<T>;
  /** PostgreSQL's connection pool: connections open, idle, and requests waiting for one. */
  poolStats(): { total: number; idle: number; waiting: number } | undefined;
  /**
   * The embedded database only: its files as a tar, checkpointed and taken between two
   * transactions (every query waits meanwhile), for `cli backup`.
   */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

// int8 (count(*), sums) as a JS number: counts here stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));
// uuid[] (a consent's categories): a UUID holds no comma, quote or brace, so the text splits as it is;
// the generic array parser took ~6% of the server's CPU on a consent listing.
pg.types.setTypeParser(2951 as Parameters<typeof pg.types.setTypeParser>[0], (value: string) => (value === '{}' ? [] : value.slice(1, -1).split(',')));

function connectPostgres(config: Config, url: string): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: 20,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // No JIT: a plan's cost counts the branches it never runs (a listing's fallback count at 10M
    // consents costs 400,000), and compiling one took 12-20 ms for a query that runs in 0.3 ms.
    options: `-c jit=off${config.databaseSchema ? ` -c search_path=${config.databaseSchema}` : ''}`,
  });
  // A client losing its server, idle or checked out between queries, must not crash the process:
  // the queries report it, and the pool replaces the client.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const kysely = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  const prepared = async <R>(client: pg.Pool | pg.PoolClient, query: CompiledQuery) => {
    const name = `prepared_${hash('sha1', query.sql, 'hex').slice(0, 20)}`;
    return (await client.query({ name, text: query.sql, values: query.parameters as unknown[] })).rows as R[];
  };
  return {
    kysely,
    engine: 'postgres',
    executePrepared: (query) => prepared(pool, query),
    async inTransaction(work) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('begin');
        const result = await work((query) => prepared(client, query));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch((lost: Error) => (broken = lost));
        throw error;
      } finally {
        // A client that could not roll back is discarded, not handed to the next caller mid-transaction.
        client.release(broken);
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => kysely.destroy(),
  };
}

function connectEmbedded(config: Config): Db {
  const inMemory = config.databaseUrl === 'memory://';
  const unlock = inMemory ? () => {} : lockDataDir(config.dataDir);
  const pglite = new PGlite(inMemory ? undefined : `${config.dataDir}/pgdata`);
  const kysely = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  // PGlite plans every statement anyway: "prepared" runs it on the instance or the transaction given.
  const prepared = (executor: Kysely<Database>) => async <R>(query: CompiledQuery) => (await executor.executeQuery(query)).rows as R[];
  return {
    kysely,
    engine: 'embedded',
    executePrepared: prepared(kysely),
    inTransaction: (work) => kysely.transaction().execute((trx) => work(prepared(trx))),
    poolStats: () => undefined,
    dumpDataDir: () => kysely.connection().execute(async () => {
      await pglite.exec('checkpoint');
      return pglite.dumpDataDir('none');
    }),
    close: async () => {
      try {
        await kysely.destroy();
      } finally {
        unlock();
      }
    },
  };
}

export function createDb(config: Config): Db {
  const url = config.databaseUrl;
  return url && url !== 'memory://' ? connectPostgres(config, url) : connectEmbedded(config);
}

export async function migrate(db: Db, schema?: string): Promise<string[]> {
  if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db.kysely);
  const migrator = new Migrator({
    db: db.kysely,
    provider: migrationProvider,
    migrationTableSchema: schema,
    // Engineers add migrations in parallel; each is independent of the others' order.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
