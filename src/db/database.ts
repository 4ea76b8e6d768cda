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

/**
 * What every connection to PostgreSQL itself is opened with: no JIT (a plan's cost counts the branches
 * it never runs, a listing's fallback count at 10M consents costs 400,000, and compiling one took 12-20
 * ms for a query that runs in 0.3 ms) and, with DATABASE_SCHEMA, that schema as the search_path.
 */
function sessionOptions(config: Config): string {
  return `-c jit=off${config.databaseSchema ? ` -c search_path=${config.databaseSchema}` : ''}`;
}

function connectPostgres(config: Config, url: string): Db {
  // Through a transaction pooler (PgBouncer, pool_mode = transaction) consecutive transactions of one
  // client run on whichever server connection is free, so nothing may rest on a session: no startup
  // options (PgBouncer refuses them; the pooler's connect_query or the role sets jit and search_path,
  // checked by checkPooledSchema) and no statement prepared by name (prepared on one server
  // connection, executed on another: "prepared statement does not exist"). Every lock the service
  // takes through this pool is a transaction's (pg_advisory_xact_lock), and nothing LISTENs, SETs or
  // makes temporary tables; the one session lock, the migrations', is taken on DATABASE_DIRECT_URL.
  const pooled = config.databaseTransactionPooler;
  const pool = new pg.Pool({
    connectionString: url,
    max: 20,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    ...(pooled ? {} : { options: sessionOptions(config) }),
  });
  // A client losing its server, idle or checked out between queries, must not crash the process:
  // the queries report it, and the pool replaces the client.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const kysely = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  const prepared = async <R>(client: pg.Pool | pg.PoolClient, query: CompiledQuery) => {
    const name = pooled ? undefined : `prepared_${hash('sha1', query.sql, 'hex').slice(0, 20)}`;
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
  return migrateWith(db.kysely, schema);
}

async function migrateWith(kysely: Kysely<Database>, schema: string | undefined): Promise<string[]> {
  if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(kysely);
  const migrator = new Migrator({
    db: kysely,
    provider: migrationProvider,
    migrationTableSchema: schema,
    // Engineers add migrations in parallel; each is independent of the others' order.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Applies the pending migrations. On PostgreSQL over one direct connection of their own
 * (DATABASE_DIRECT_URL, else DATABASE_URL), never through the pool: the migrator holds a session-level
 * advisory lock (Kysely's, taken and released in statements of their own) that a transaction pooler
 * would take on one server connection and try to release on another, leaving it held. On that
 * connection this process first takes a session lock of its own for the deployment's schema, around
 * the schema's creation and the migrations: of several processes starting at once on a database that
 * needs migrations, one migrates and the others wait for it (`onWait` says so), then find nothing to
 * do. The lock goes with the connection, also when the process dies.
 */
export async function migrateDatabase(db: Db, config: Config, onWait?: () => void): Promise<string[]> {
  const url = config.databaseDirectUrl;
  if (db.engine === 'embedded' || !url) return migrate(db, config.databaseSchema);
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 5_000, options: sessionOptions(config) });
  pool.on('error', () => {});
  const direct = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  try {
    return await direct.connection().execute(async (session) => {
      const key = `consentry:migrations:${config.databaseSchema ?? ''}`;
      const free = await sql<{ locked: boolean }>`select pg_try_advisory_lock(hashtext(${key})) as locked`.execute(session);
      if (!free.rows[0].locked) {
        onWait?.();
        await sql`select pg_advisory_lock(hashtext(${key}))`.execute(session);
      }
      try {
        return await migrateWith(session, config.databaseSchema);
      } finally {
        await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(session);
      }
    });
  } finally {
    await direct.destroy();
  }
}

/**
 * Through a transaction pooler the service sends no search_path: the pooler's server connections must
 * already run in DATABASE_SCHEMA (PgBouncer's `connect_query`, or `ALTER ROLE … SET search_path`).
 * Checked once at start, after the migrations made the schema, so that a pooler set up otherwise stops
 * the start instead of writing into another schema.
 */
export async function checkPooledSchema(db: Db, config: Config): Promise<string | undefined> {
  if (db.engine !== 'postgres' || !config.databaseTransactionPooler || !config.databaseSchema) return undefined;
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db.kysely);
  if (rows[0].schema === config.databaseSchema) return undefined;
  return `DATABASE_SCHEMA is ${config.databaseSchema} but the connections through DATABASE_URL (a transaction pooler) run in ${rows[0].schema ?? 'no schema'}: `
    + `set it in the pooler (PgBouncer: connect_query = 'SET search_path TO ${config.databaseSchema}') or for the role (ALTER ROLE … SET search_path TO ${config.databaseSchema})`;
}
