/**
 * `cli backup` and `cli restore` of the embedded database, as an operator runs them: the CLI in a
 * child process beside a running server (which holds DATA_DIR's lock, so the CLI asks it over its
 * socket), and again with the server stopped. Restored into a new DATA_DIR, the database holds the
 * same consents, their chain verifies and the API tokens still work. Embedded only: PostgreSQL is
 * backed up with its own tools (pg-dump-restore.test.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ENGINE, startApp, type TestApp } from '../helpers/app.ts';
import { builtEntry } from '../helpers/built-entries.ts';
import { freshDataDir } from '../helpers/embedded-template.ts';
import { createTenant, type Tenant } from '../helpers/tenants.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'consentry-backup-'));

function cli(args: string[], dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...builtEntry('cli'), ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', REDIS_URL: '', DATABASE_URL: '', DATABASE_SCHEMA: '', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Each CLI run starts the embedded engine in a process of its own: tens of seconds on a loaded machine.
describe.runIf(ENGINE === 'embedded')('embedded backup and restore', { timeout: 300_000 }, () => {
  const dataDir = freshDataDir();
  let t: TestApp | undefined;
  let tenant: Tenant;

  const consent = (session: string) => ({ consent: { session_id: session, user_preferences: { accept_type: 'all' } } });
  const record = async (app: TestApp, session: string) =>
    (await call(app.app, 'POST', '/api/v1/consents', { token: tenant.tokens.account, body: consent(session) })).status;
  const total = async (app: TestApp) => {
    const res = await call(app.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { limit: '1' } });
    expect(res.status).toBe(200);
    return res.body.pagination.count as number;
  };

  /** Restores `file` into a new DATA_DIR, serves it, and checks it through the API with the old tokens. */
  const restored = async (file: string, expected: { min: number; max: number }) => {
    const target = join(scratch, `restored-${Math.random().toString(36).slice(2)}`);
    const run = await cli(['restore', file], target);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout);
    expect(printed.accounts).toBe(1);
    expect(printed.consents).toBeGreaterThanOrEqual(expected.min);
    expect(printed.consents).toBeLessThanOrEqual(expected.max);
    const copy = await startApp({ env: { DATA_DIR: target } });
    try {
      expect(await total(copy)).toBe(printed.consents);
      const verified = await call(copy.app, 'GET', '/api/v1/consents/verify', { token: tenant.tokens.account });
      expect(verified.body).toEqual({ valid: true, checked: printed.consents, first_bad_id: null });
      expect((await call(copy.app, 'GET', '/api/v1/me', { token: tenant.tokens.admin })).status).toBe(200);
      // The chain goes on from the restored head.
      expect(await record(copy, 'after-restore')).toBe(201);
      const again = await call(copy.app, 'GET', '/api/v1/consents/verify', { token: tenant.tokens.account });
      expect(again.body).toMatchObject({ valid: true, checked: printed.consents + 1 });
    } finally {
      await copy.close();
    }
    return { target, consents: printed.consents as number };
  };

  beforeAll(async () => {
    t = await startApp({ env: { DATA_DIR: dataDir, RATE_LIMIT_MAX: '100000' } });
    tenant = await createTenant(t.services, 'Backup');
    for (let i = 0; i < 25; i++) expect(await record(t, `before-${i}`)).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('backs up a running server, and the restore holds the same consents, chain and tokens', async () => {
    const out = join(scratch, 'quiet.tar.gz');
    const run = await cli(['backup', '--out', out], dataDir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({ file: out, from: 'server' });
    expect(printed.bytes).toBe(statSync(out).size);
    await restored(out, { min: 25, max: 25 });
  });

  it('takes a consistent copy while consents are being recorded', async () => {
    const before = await total(t!);
    let writing = true;
    const statuses: number[] = [];
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; writing; i++) statuses.push(await record(t!, `during-${w}-${i}`));
    });
    const out = join(scratch, 'busy.tar.gz');
    const run = await cli(['backup', '--out', out], dataDir);
    writing = false;
    await Promise.all(writers);
    expect(run.code).toBe(0);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 201)).toBe(true);
    const { consents } = await restored(out, { min: before, max: await total(t!) });
    expect(consents).toBeLessThanOrEqual(before + statuses.length);
  });

  it('backs up directly when no server runs', async () => {
    const count = await total(t!);
    await t!.close();
    t = undefined;
    const out = join(scratch, 'stopped.tar.gz');
    const run = await cli(['backup', '--out', out], dataDir);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ from: 'data_dir' });
    await restored(out, { min: count, max: count });
  });

  it('refuses a DATA_DIR that is not empty, an existing --out, and a file that is no backup', async () => {
    const out = join(scratch, 'stopped.tar.gz');
    const full = await cli(['restore', out], dataDir);
    expect(full.code).toBe(1);
    expect(full.stdout).toBe('');
    expect(full.stderr).toMatch(/^consentry: DATA_DIR .* is not empty/);

    expect((await cli(['backup', '--out', out], dataDir)).stderr).toMatch(/exists/);

    const junk = join(scratch, 'junk.tar.gz');
    writeFileSync(junk, 'not a backup at all');
    const target = join(scratch, 'junk-target');
    const wrong = await cli(['restore', junk], target);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^consentry: the file is not a backup/);
    expect(!existsSync(target) || readdirSync(target).length === 0).toBe(true);
  });
});
