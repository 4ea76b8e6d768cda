/**
 * The PostgreSQL backup recipe of docs/operating.md, run: `pg_dump -Fc` of a deployment's schema with
 * chained consents (one of them erased), `pg_restore` into a new database, and the service started on
 * the copy finds the same consents, a chain that verifies, and the same API tokens working. The
 * throwaway database is dropped afterwards. PostgreSQL only (the embedded database: embedded-backup.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ENGINE, startApp, type TestApp } from '../helpers/app.ts';
import { postgresTool } from '../helpers/private-postgres.ts';
import { createTenant, type Tenant } from '../helpers/tenants.ts';

const pgDump = postgresTool('pg_dump');
const pgRestore = postgresTool('pg_restore');

describe.runIf(ENGINE === 'postgres' && pgDump && pgRestore)('pg_dump and pg_restore', { timeout: 180_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'consentry-pgdump-'));
  const copyName = `consentry_restore_${randomBytes(6).toString('hex')}`;
  const copyUrl = (() => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${copyName}`;
    return url.toString();
  })();
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startApp({ env: { RATE_LIMIT_MAX: '100000' } });
    tenant = await createTenant(t.services, 'Dump');
    for (let i = 0; i < 30; i++) {
      const res = await call(t.app, 'POST', '/api/v1/consents', {
        token: tenant.tokens.account, body: { consent: { session_id: `s-${i}`, user_id: `u-${i % 3}`, user_preferences: { accept_type: 'all' } } },
      });
      expect(res.status).toBe(201);
    }
    // An erasure leaves the records and the chain, with the personal fields cleared.
    expect((await call(t.app, 'POST', '/api/v1/consents/erase', { token: tenant.tokens.account, body: { user_id: 'u-1' } })).status).toBe(200);
    await admin.connect();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await admin.query(`drop database if exists "${copyName}" with (force)`).catch(() => {});
    await admin.end().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  });

  it('restores a dump into a new database where the chain verifies and the tokens work', async () => {
    const schema = t.services.config.databaseSchema!;
    const original = await call(t.app, 'GET', '/api/v1/consents/verify', { token: tenant.tokens.account });
    expect(original.body).toEqual({ valid: true, checked: 30, first_bad_id: null });

    const file = join(scratch, 'consentry.dump');
    execFileSync(pgDump!, ['-Fc', `--schema=${schema}`, '-f', file, process.env.DATABASE_URL!], { stdio: 'pipe' });
    await admin.query(`create database "${copyName}"`);
    execFileSync(pgRestore!, ['--no-owner', '-d', copyUrl, file], { stdio: 'pipe' });

    const copy = await startApp({ env: { DATABASE_URL: copyUrl, DATABASE_SCHEMA: schema } });
    try {
      const verified = await call(copy.app, 'GET', '/api/v1/consents/verify', { token: tenant.tokens.account });
      expect(verified.body).toEqual({ valid: true, checked: 30, first_bad_id: null });
      const listed = await call(copy.app, 'GET', '/api/v1/consents', { token: tenant.tokens.account, query: { limit: '1' } });
      expect(listed.body.pagination.count).toBe(30);
      expect((await call(copy.app, 'GET', '/api/v1/me', { token: tenant.tokens.admin })).status).toBe(200);
      const erasures = await call(copy.app, 'GET', '/api/v1/consents/erasures', { token: tenant.tokens.account });
      expect(erasures.body.data).toHaveLength(1);
      // The restored chain goes on.
      const next = await call(copy.app, 'POST', '/api/v1/consents', {
        token: tenant.tokens.account, body: { consent: { session_id: 'after', user_preferences: { accept_type: 'necessary' } } },
      });
      expect(next.status).toBe(201);
      expect((await call(copy.app, 'GET', '/api/v1/consents/verify', { token: tenant.tokens.account })).body).toMatchObject({ valid: true, checked: 31 });
    } finally {
      await copy.close();
    }
  });
});
