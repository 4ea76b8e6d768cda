/**
 * The service through a real PgBouncer in transaction mode, with DATABASE_DIRECT_URL for what needs a
 * session: two server processes starting at once on a database that needs its migrations (one
 * migrates, the other waits), what a transaction pooler would otherwise break, and the settings.
 * (The consent, scan and retention paths run through PgBouncer in the `pgbouncer` project.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createDb, migrate } from '../../src/db/database.ts';
import { createServices } from '../../src/services.ts';
import { freePort } from '../../bench/processes.ts';
import { ENGINE } from '../helpers/app.ts';
import { builtEntry } from '../helpers/built-entries.ts';
import { canRunPgBouncer, PgBouncer } from '../helpers/pgbouncer.ts';
import { createThrowawayDatabase } from '../helpers/throwaway-database.ts';

interface Server {
  child: ChildProcess;
  url: string;
  /** What it logged (stdout and stderr), JSON lines. */
  log: string;
}

/** The built server in its own process; resolves once /readyz answers 200. */
async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, builtEntry('server'), {
    env: { ...process.env, LOG_LEVEL: 'info', SCAN_CONCURRENCY: '0', REDIS_URL: '', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server: Server = { child, url: `http://127.0.0.1:${port}`, log: '' };
  child.stdout!.on('data', (chunk) => (server.log += chunk));
  child.stderr!.on('data', (chunk) => (server.log += chunk));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited: ${server.log}`);
    try {
      if ((await fetch(`${server.url}/readyz`)).ok) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not become ready: ${server.log}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(server: Server | undefined) {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

/** The migrations a server's log says it applied; undefined when it applied none. */
function appliedBy(server: Server): string[] | undefined {
  const line = server.log.split('\n').filter(Boolean).map((text) => JSON.parse(text)).find((entry) => entry.msg === 'applied the pending migrations');
  return line?.migrated;
}

describe.skipIf(ENGINE !== 'postgres' || !canRunPgBouncer())('through PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    bouncer = await PgBouncer.start({ target: process.env.DATABASE_URL!, poolSize: 2 });
  });
  afterAll(() => bouncer?.stop());

  it('two instances starting at once on an unmigrated database: one migrates, the other waits, both serve', async () => {
    const database = await createThrowawayDatabase(process.env.DATABASE_URL!);
    const servers: Server[] = [];
    try {
      const env = { DATABASE_URL: bouncer.url(database.name), DATABASE_DIRECT_URL: database.url };
      const started = await Promise.allSettled([startServer(env), startServer(env)]);
      for (const result of started) if (result.status === 'fulfilled') servers.push(result.value);
      expect(started.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);

      const all = (await migrate(createDb(loadConfig({ DATABASE_URL: 'memory://' })))).sort();
      const client = new pg.Client(database.url);
      await client.connect();
      const { rows } = await client.query<{ name: string }>('select name from kysely_migration order by name');
      await client.end();
      expect(rows.map((row) => row.name)).toEqual(all);

      const applied = servers.map(appliedBy);
      expect(applied.filter((names) => names !== undefined).map((names) => names!.sort())).toEqual([all]);
      // The other either found the lock held and waited (it logs so), or came after the first had
      // finished: which, the machine's timing decides.

      for (const server of servers) {
        const res = await fetch(`${server.url}/api/v1/users`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ user: { name: 'Pooled', email: `pooled-${server.child.pid}@example.com`, password: 'correct horse battery' } }),
        });
        expect(res.status).toBe(201);
      }
    } finally {
      await Promise.all(servers.map(stop));
      await database.drop();
    }
  }, 240_000);

  it('refuses to start when the pooler\'s connections run in another schema than DATABASE_SCHEMA', async () => {
    const database = await createThrowawayDatabase(process.env.DATABASE_URL!);
    try {
      const config = loadConfig({ DATABASE_URL: bouncer.url(database.name), DATABASE_DIRECT_URL: database.url, DATABASE_SCHEMA: 'consentry_app', LOG_LEVEL: 'silent', REDIS_URL: '', SCAN_CONCURRENCY: '0' });
      const error = await createServices(config).then(async (services) => {
        await services.close();
        return undefined;
      }, (failure: unknown) => failure);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain("connect_query = 'SET search_path TO consentry_app'");
      // The migrations ran on the direct connection, in the schema.
      const client = new pg.Client(database.url);
      await client.connect();
      const { rows } = await client.query("select count(*)::int as n from information_schema.tables where table_schema = 'consentry_app' and table_name = 'consents'");
      await client.end();
      expect(rows[0].n).toBe(1);
    } finally {
      await database.drop();
    }
  }, 120_000);

  it('sends no statement prepared by name through the pooler, and prepares them on a direct connection', async () => {
    const database = await createThrowawayDatabase(process.env.DATABASE_URL!);
    const pooled = createDb(loadConfig({ DATABASE_URL: bouncer.url(database.name), DATABASE_DIRECT_URL: database.url }));
    const direct = createDb(loadConfig({ DATABASE_URL: database.url }));
    try {
      // Eight clients, two server connections: a statement prepared by name on one server connection
      // would be missing on the next ("prepared statement … does not exist").
      const query = sql<{ n: number }>`select ${1}::int + 1 as n`.compile(pooled.kysely);
      const answers = await Promise.all(Array.from({ length: 200 }, () => pooled.executePrepared<{ n: number }>(query)));
      expect(answers.every((rows) => rows[0].n === 2)).toBe(true);
      const inTransactions = await Promise.all(Array.from({ length: 50 }, () => pooled.inTransaction(async (execute) => (await execute<{ n: number }>(query))[0].n)));
      expect(inTransactions.every((n) => n === 2)).toBe(true);

      // A statement listing the named statements of its own connection: prepared by name there, it
      // lists itself.
      const named = sql<{ name: string }>`select name from pg_prepared_statements where ${1}::int = 1`;
      expect((await direct.executePrepared<{ name: string }>(named.compile(direct.kysely))).map((row) => row.name)).toEqual([expect.stringMatching(/^prepared_/)]);
      for (let i = 0; i < 4; i++) expect(await pooled.executePrepared(named.compile(pooled.kysely))).toEqual([]);
    } finally {
      await pooled.close();
      await direct.close();
      await database.drop();
    }
  }, 60_000);
});
