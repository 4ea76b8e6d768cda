import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { inject } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createServices, type Services } from '../../src/services.ts';
import { freshDataDir } from './embedded-template.ts';
import { createThrowawayDatabase } from './throwaway-database.ts';

export type Engine = 'embedded' | 'postgres';
export const ENGINE: Engine = process.env.TEST_DB === 'postgres' ? 'postgres' : 'embedded';
export const WITH_REDIS = ENGINE === 'postgres' && !!process.env.REDIS_URL;
/**
 * The `pgbouncer` project: PostgreSQL reached through a real PgBouncer in transaction mode (see
 * pgbouncer.ts), DATABASE_DIRECT_URL for the migrations. Each app gets a database of its own there
 * instead of a schema: through a transaction pooler the service sends no search_path.
 */
export const THROUGH_PGBOUNCER = ENGINE === 'postgres' && process.env.TEST_POOLER === 'pgbouncer';

/** The environment of an app behind the run's PgBouncer, on a new database of its own. */
async function pgbouncerDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const port = inject('pgbouncerPort');
  if (!port) throw new Error('the pgbouncer project needs PgBouncer (apt-get install pgbouncer) and DATABASE_URL');
  const database = await createThrowawayDatabase(process.env.DATABASE_URL!);
  const env = { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/${database.name}`, DATABASE_DIRECT_URL: database.url, DATABASE_SCHEMA: '' };
  return { env, drop: database.drop };
}

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Share this database schema and Redis prefix (a second instance of the same deployment). */
  shareWith?: TestApp;
  /** Collects the app's log lines (set LOG_LEVEL in env to see them). */
  logLines?: string[];
}

/**
 * A whole app on a fresh database: PGlite in its own data directory (a copy of the freshly migrated
 * template, see embedded-template.ts), or its own schema on the PostgreSQL server.
 */
export async function startApp(options: TestAppOptions = {}): Promise<TestApp> {
  if (options.shareWith && ENGINE === 'embedded') throw new Error('The embedded database cannot be shared');
  const unique = randomBytes(6).toString('hex');
  const shared = options.shareWith?.services.config;
  const ownDatabase = options.env?.DATABASE_URL !== undefined || options.env?.DATA_DIR !== undefined;
  const dataDir = ENGINE === 'embedded' && !ownDatabase ? freshDataDir() : undefined;
  const pooled = THROUGH_PGBOUNCER && !ownDatabase && !shared ? await pgbouncerDatabase() : undefined;
  const pooledEnv = pooled?.env ?? (THROUGH_PGBOUNCER && shared && !ownDatabase
    ? { DATABASE_URL: shared.databaseUrl!, DATABASE_DIRECT_URL: shared.databaseDirectUrl!, DATABASE_SCHEMA: '' }
    : {});
  const env: Record<string, string | undefined> = {
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: ENGINE === 'postgres' ? process.env.DATABASE_URL : '',
    DATA_DIR: dataDir,
    DATABASE_SCHEMA: ENGINE === 'postgres' ? (shared?.databaseSchema ?? `test_${unique}`) : undefined,
    REDIS_URL: WITH_REDIS ? process.env.REDIS_URL : undefined,
    REDIS_PREFIX: shared?.redisPrefix ?? `test:${unique}:`,
    ...pooledEnv,
    ...options.env,
  };
  const config = loadConfig(env);
  const removeDataDir = async () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await pooled?.drop();
  };
  let services: Services;
  try {
    services = await createServices(config);
  } catch (error) {
    await removeDataDir();
    throw error;
  }
  const lines = options.logLines;
  const app = await buildApp(services, lines ? { logStream: { write: (line: string) => void lines.push(line) } } : {});
  await app.ready();
  return {
    app,
    services,
    async close() {
      await app.close();
      if (ENGINE === 'postgres' && !options.shareWith && config.databaseSchema) {
        await sql`drop schema if exists ${sql.id(config.databaseSchema!)} cascade`.execute(services.db);
      }
      await services.close();
      await removeDataDir();
    },
  };
}

/** An app of its own for one test: started, handed to `use`, and closed whatever `use` does. */
export async function withApp<T>(options: TestAppOptions, use: (t: TestApp) => Promise<T>): Promise<T> {
  const t = await startApp(options);
  try {
    return await use(t);
  } finally {
    await t.close();
  }
}

export interface Call {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

/** One HTTP request through the whole stack (routing, hooks, validation, serialisation). */
export async function call<T = any>(app: FastifyInstance, method: string, url: string, options: Call = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (options.body !== undefined) {
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await app.inject({ method: method as 'GET', url, headers, payload, query: options.query });
  let body: unknown = response.body;
  // JSON bodies only: application/json or +json, not a stream of JSON lines (application/x-ndjson).
  if (/^application\/([\w.-]+\+)?json\b/.test((response.headers['content-type'] ?? '').toString()) && response.body !== '') {
    body = JSON.parse(response.body);
  }
  return { status: response.statusCode, body: body as T, headers: response.headers };
}
