import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ENGINE, startApp, type TestApp } from './helpers/app.ts';
import { builtEntry } from './helpers/built-entries.ts';

/**
 * The operator CLI as an operator runs it: a child process on a real database — an embedded one
 * on disk in DATA_DIR, or its own schema on the PostgreSQL server — read back through the app.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const token = (prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{40,}$`);

const dataDir = mkdtempSync(join(tmpdir(), 'consentry-cli-'));
const schema = `cli_${randomBytes(6).toString('hex')}`;

/** The database every process of this file shares. */
const DATABASE_ENV: Record<string, string> =
  ENGINE === 'postgres'
    ? { DATABASE_URL: process.env.DATABASE_URL!, DATABASE_SCHEMA: schema, DATA_DIR: dataDir }
    : { DATABASE_URL: '', DATABASE_SCHEMA: '', DATA_DIR: dataDir };

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, LOG_LEVEL: 'silent', REDIS_URL: '', ...DATABASE_ENV, ...extra };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function node(nodeArgs: string[], args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * The CLI from its bundle (built once per run from src/cli.ts, see built-entries.ts); `fromSource`
 * runs it as `npm run cli` does, under tsx, which costs most of a second of CPU more per process.
 */
function cli(args: string[], env: Record<string, string> = {}, fromSource = false): Promise<Run> {
  const child = node(fromSource ? ['--import', 'tsx', 'src/cli.ts'] : builtEntry('cli'), args, childEnv(env));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a command that must succeed and print exactly one JSON object, and returns it. */
async function cliJson(args: string[], fromSource = false): Promise<any> {
  const run = await cli(args, {}, fromSource);
  expect(run.stderr, `consentry ${args.join(' ')}`).toBe('');
  expect(run.code).toBe(0);
  const output = JSON.parse(run.stdout);
  expect(output).toBeTypeOf('object');
  expect(Array.isArray(output)).toBe(false);
  return output;
}

/** Bad input: a non-zero exit, the reason on stderr, nothing on stdout. */
async function expectRefusal(args: string[], message: RegExp, env: Record<string, string> = {}) {
  const run = await cli(args, env);
  expect(run.code, `consentry ${args.join(' ')}`).not.toBe(0);
  expect(run.code).not.toBeNull();
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(message);
}

/** The embedded database admits one process at a time; PostgreSQL takes them side by side. */
async function eachInTurn<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  if (ENGINE === 'postgres') return Promise.all(jobs.map((job) => job()));
  const results: T[] = [];
  for (const job of jobs) results.push(await job());
  return results;
}

interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `npm start`'s bundle on the shared database, on a free port; resolves once it logs that it is serving. */
function startServer(): Promise<Server> {
  const child = node(builtEntry('server'), [], childEnv({ LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1' }));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  let log = '';
  child.stderr!.on('data', (chunk) => (log += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start:\n${log}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${log}`));
    });
    child.stdout!.on('data', (chunk) => {
      log += chunk;
      const url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1];
      if (url && log.includes('Consentry is serving')) {
        clearTimeout(timer);
        resolve({ url, child, stop });
      }
    });
  });
}

async function me(url: string, secret: string) {
  const res = await fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
  return { status: res.status, body: (await res.json()) as any };
}

let server: Server | undefined;

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (ENGINE === 'postgres') {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
});

describe('operator CLI', { timeout: 90_000 }, () => {
  const made = {} as {
    partner: any;
    partnerToken: string;
    user: any;
    demo: any;
    tokens: { partner: any; user: any; account: any };
    seeded: number;
  };

  beforeAll(async () => {
    // The first command goes the way an operator's `npm run cli` goes: from the sources, under tsx.
    const first = await cliJson(['migrate'], true);
    expect(Object.keys(first)).toEqual(['migrated']);
    expect(first.migrated).toContain('2026_11_22_0001_foundation');
  }, 90_000);

  it('partners create prints the partner and its csp_ token', async () => {
    const out = await cliJson(['partners', 'create', '--name', '  Acme Agency ']);
    expect(out).toEqual({
      partner: { id: expect.stringMatching(UUID), name: 'Acme Agency', created_at: expect.stringMatching(TIMESTAMP) },
      token: expect.stringMatching(token('csp')),
    });
    made.partner = out.partner;
    made.partnerToken = out.token;
  });

  it('users create prints the user, with the email normalised', async () => {
    const out = await cliJson(['users', 'create', '--email', 'Ops@Example.TEST', '--name', 'Olga Ops', '--password', 'long enough']);
    expect(out).toEqual({
      user: {
        id: expect.stringMatching(UUID),
        name: 'Olga Ops',
        email: 'ops@example.test',
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      },
    });
    made.user = out.user;
  });

  it('demo prints a whole tenant with a token of each type', async () => {
    const out = await cliJson(['demo']);
    expect(out).toEqual({
      partner: { id: expect.stringMatching(UUID), name: expect.stringMatching(/^Demo Agency /) },
      group: { id: expect.stringMatching(UUID), name: 'Demo customers' },
      account: { id: expect.stringMatching(UUID), name: 'Demo Shop', domain: 'shop.example.com' },
      user: { id: expect.stringMatching(UUID), email: expect.stringMatching(/@demo\.consentry\.local$/), password: expect.any(String) },
      categories: expect.arrayContaining([{ id: expect.stringMatching(UUID), slug: 'necessary', name: 'Necessary', required: true }]),
      storage_items: expect.any(Array),
      tokens: { partner: expect.stringMatching(token('csp')), user: expect.stringMatching(token('csu')), account: expect.stringMatching(token('csa')) },
    });
    expect(out.categories).toHaveLength(3);
    const categoryIds = out.categories.map((c: { id: string }) => c.id);
    expect(out.storage_items.length).toBeGreaterThan(0);
    for (const item of out.storage_items) expect(categoryIds).toContain(item.category_id);
    expect(out.user.password.length).toBeGreaterThanOrEqual(8);
    made.demo = out;
  });

  it('seed consents bulk-creates consents for an account, counted exactly', async () => {
    const out = await cliJson(['seed', 'consents', '--account', made.demo.account.id, '--count', '2500']);
    expect(out).toEqual({ account_id: made.demo.account.id, consents: 2500, seconds: expect.any(Number) });
    const bad = await cli(['seed', 'consents', '--account', made.demo.account.id, '--count', 'many']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--count must be a whole number');
    made.seeded = 2500;
  });

  it('consents verify checks the seeded chain, and refuses an unknown account', async () => {
    const out = await cliJson(['consents', 'verify', '--account', made.demo.account.id]);
    expect(out).toEqual({ account_id: made.demo.account.id, valid: true, checked: 2500, first_bad_id: null });
    const unknown = await cli(['consents', 'verify', '--account', randomUUID()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no account with id');
  });

  it('tokens create prints a token of the type asked for', async () => {
    const [partner, user, account] = await eachInTurn([
      () => cliJson(['tokens', 'create', '--partner', made.partner.id, '--name', 'deploy bot']),
      () => cliJson(['tokens', 'create', '--user', made.user.id]),
      () => cliJson(['tokens', 'create', '--account', made.demo.account.id, '--name', 'shop backend']),
    ]);
    const apiToken = (type: string, name: string, accountId: string | null) => ({
      id: expect.stringMatching(UUID),
      name,
      token_type: type,
      kind: 'api',
      token_hint: expect.stringMatching(/^[0-9A-Za-z]{4}$/),
      account_id: accountId,
      expires_at: null,
      created_at: expect.stringMatching(TIMESTAMP),
    });
    expect(partner).toEqual({ token: expect.stringMatching(token('csp')), api_token: apiToken('partner', 'deploy bot', null) });
    expect(user).toEqual({ token: expect.stringMatching(token('csu')), api_token: apiToken('user', 'CLI', null) });
    expect(account).toEqual({ token: expect.stringMatching(token('csa')), api_token: apiToken('account', 'shop backend', made.demo.account.id) });
    for (const out of [partner, user, account]) expect(out.token.endsWith(out.api_token.token_hint)).toBe(true);
    made.tokens = { partner, user, account };
  });

  // Refused before a database is opened: the engine plays no part, so the embedded project only.
  it.runIf(ENGINE === 'embedded')('refuses bad arguments before touching the database', async () => {
    await Promise.all([
      expectRefusal([], /Usage: consentry/),
      expectRefusal(['bogus'], /unknown command 'bogus'/),
      expectRefusal(['partners', 'create'], /required option '--name <name>' not specified/),
      expectRefusal(['partners', 'create', '--name', '   '], /^consentry: --name must not be blank\n$/),
      expectRefusal(['users', 'create', '--email', 'nobody', '--name', 'N', '--password', 'long enough'], /--email is not an email address/),
      expectRefusal(['users', 'create', '--email', 'a@b.test', '--name', 'N', '--password', 'short'], /--password must have between 8 and 256 characters/),
      expectRefusal(['users', 'set-password', '--email', 'a@b.test', '--password', 'short'], /--password must have between 8 and 256 characters/),
      expectRefusal(['users', 'set-password', '--password', 'long enough'], /required option '--email <email>' not specified/),
      expectRefusal(['tokens', 'create'], /give exactly one of --partner, --user, --account/),
      expectRefusal(['tokens', 'create', '--user', randomUUID(), '--account', randomUUID()], /give exactly one of/),
      expectRefusal(['tokens', 'create', '--account', 'not-an-id'], /--account must be an id \(a UUID\), got "not-an-id"/),
      expectRefusal(['migrate'], /^consentry: DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/ or memory:\/\/\n$/, {
        DATABASE_URL: 'mysql://localhost/db',
      }),
    ]);
  });

  it('refuses ids that name nothing, and an email already taken', async () => {
    await eachInTurn([
      () => expectRefusal(['tokens', 'create', '--partner', made.user.id], new RegExp(`no partner with the id ${made.user.id}`)),
      () => expectRefusal(
        ['users', 'create', '--email', 'OPS@example.test', '--name', 'Again', '--password', 'long enough'],
        /a user with the email OPS@example.test already exists/,
      ),
      () => expectRefusal(['users', 'set-password', '--email', 'nobody@example.test', '--password', 'long enough'], /^consentry: no user with the email nobody@example.test\n$/),
    ]);
  });

  if (ENGINE === 'embedded') {
    it('refuses a DATA_DIR held by a running server, and leaves its data whole', async () => {
      server = await startServer();
      const run = await cli(['partners', 'create', '--name', 'Intruder']);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`consentry: The embedded database in ${dataDir} is in use by process ${server.child.pid}`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      const answer = await me(server.url, made.partnerToken);
      expect(answer.status).toBe(200);
      expect(answer.body.data.partner.id).toBe(made.partner.id);
      await server.stop();
      expect(server.child.exitCode).toBe(0);
      server = undefined;
    });
  } else {
    it('runs beside a server on the same PostgreSQL database', async () => {
      server = await startServer();
      const [out, migrated] = await Promise.all([cliJson(['partners', 'create', '--name', 'Side by side']), cliJson(['migrate'])]);
      expect(migrated).toEqual({ migrated: [] });
      const answer = await me(server.url, out.token);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ token_type: 'partner', partner: { id: out.partner.id, name: 'Side by side' } });
      await server.stop();
      server = undefined;
    });
  }

  it('made tokens that work against the app on the same database', async () => {
    const t = await startApp({ env: DATABASE_ENV });
    try {
      const whoIs = async (secret: string) => {
        const res = await call(t.app, 'GET', '/api/v1/me', { token: secret });
        expect(res.status).toBe(200);
        return res.body.data;
      };
      expect(await whoIs(made.partnerToken)).toMatchObject({ token_type: 'partner', partner: { id: made.partner.id, name: 'Acme Agency' } });
      expect(await whoIs(made.tokens.partner.token)).toMatchObject({ token_type: 'partner', partner: { id: made.partner.id } });
      expect(await whoIs(made.tokens.user.token)).toMatchObject({ token_type: 'user', user: { id: made.user.id } });
      expect(await whoIs(made.tokens.account.token)).toMatchObject({ token_type: 'account', account: { id: made.demo.account.id } });

      const demo = made.demo;
      expect(await whoIs(demo.tokens.partner)).toMatchObject({ token_type: 'partner', partner: { id: demo.partner.id }, user: null, account: null });
      expect(await whoIs(demo.tokens.user)).toMatchObject({ token_type: 'user', user: { id: demo.user.id, email: demo.user.email }, partner: null });
      expect(await whoIs(demo.tokens.account)).toMatchObject({
        token_type: 'account',
        account: {
          id: demo.account.id, group_id: demo.group.id, owner_id: demo.user.id, onboarding_status: 'vendors_setup',
          // The demo is a new account: the AI sorts and describes what is added; a person approves.
          ai_features: { autofill: true, auto_categorise: true, auto_approve: false },
        },
      });

      const consents = await call(t.app, 'GET', '/api/v1/consents', { token: demo.tokens.account, query: { limit: '1' } });
      expect(consents.body.pagination.count).toBe(made.seeded);

      const items = await call(t.app, 'GET', '/api/v1/storage-items', { token: demo.tokens.account, query: { limit: '100' } });
      expect(items.status).toBe(200);
      expect(items.body.data.map((item: { id: string }) => item.id).sort()).toEqual(demo.storage_items.map((item: { id: string }) => item.id).sort());
      const byName = new Map(items.body.data.map((item: any) => [item.name, item]));
      expect(items.body.data.every((item: any) => item.status === 'finalised' && item.approved_by_type === 'API')).toBe(true);
      expect(byName.get('_ga_D3M0')).toMatchObject({ wildcard_cookie_id: (byName.get('_ga_*') as any).id });

      const groups = await call(t.app, 'GET', '/api/v1/groups', { token: demo.tokens.partner });
      expect(groups.body.data.map((g: { id: string }) => g.id)).toEqual([demo.group.id]);
      const partnerTokens = await call(t.app, 'GET', '/api/v1/api-tokens', { token: demo.tokens.partner });
      expect(partnerTokens.body.data.map((row: { id: string }) => row.id)).toContain(made.tokens.account.api_token.id);

      for (const { email, password, id } of [
        { ...made.user, password: 'long enough' },
        { ...demo.user },
      ]) {
        const login = await call(t.app, 'POST', '/api/v1/auth', { body: { email, password } });
        expect(login.status).toBe(200);
        expect(login.body.user.id).toBe(id);
        expect(login.body.token).toMatch(token('csu'));
      }
    } finally {
      // Not t.close(): on PostgreSQL that would drop the schema, which afterAll owns.
      await t.app.close();
      await t.services.close();
    }
  });

  it('users set-password sets a password without the old one and logs out the user\'s sessions', async () => {
    const app = () => startApp({ env: DATABASE_ENV });
    // Not t.close(): on PostgreSQL that would drop the schema, which afterAll owns.
    const close = async (t: TestApp) => {
      await t.app.close();
      await t.services.close();
    };
    const login = (t: TestApp, password: string) => call(t.app, 'POST', '/api/v1/auth', { body: { email: made.user.email, password } });
    let t = await app();
    let session: string;
    try {
      const before = await login(t, 'long enough');
      expect(before.status).toBe(200);
      session = before.body.token;
    } finally {
      // The embedded database admits one process at a time: the CLI runs once the app has let go.
      await close(t);
    }

    const out = await cliJson(['users', 'set-password', '--email', ' OPS@Example.test ', '--password', 'a new passphrase']);
    expect(out).toEqual({
      user: { ...made.user, updated_at: expect.stringMatching(TIMESTAMP) },
      sessions_revoked: expect.any(Number),
    });
    expect(out.sessions_revoked).toBeGreaterThanOrEqual(1);
    expect(Date.parse(out.user.updated_at)).toBeGreaterThan(Date.parse(made.user.updated_at));

    t = await app();
    try {
      expect((await call(t.app, 'GET', '/api/v1/me', { token: session })).status).toBe(401);
      expect((await login(t, 'long enough')).status).toBe(401);
      const after = await login(t, 'a new passphrase');
      expect(after.status).toBe(200);
      expect(after.body.user.id).toBe(made.user.id);
      // Named API tokens are not sessions: they stay, as after PUT /password.
      expect((await call(t.app, 'GET', '/api/v1/me', { token: made.tokens.user.token })).status).toBe(200);
      const stored = await t.services.db.selectFrom('users').select('password_hash').where('id', '=', made.user.id).executeTakeFirstOrThrow();
      expect(stored.password_hash).toMatch(/^\$argon2id\$/);
    } finally {
      await close(t);
    }
  });
});
