/**
 * A database or schema that goes away is an outage, not a bug: every route answers 503 with
 * Retry-After, /readyz says so, and the service recovers by itself once it is back. Starting on a
 * database that does not exist prints one line saying what to do. PostgreSQL only.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/database.ts';
import { generateToken } from '../../src/lib/token-secret.ts';
import { call, ENGINE, startApp, type TestApp } from '../helpers/app.ts';
import { builtEntry } from '../helpers/built-entries.ts';
import { createTenant, type Tenant } from '../helpers/tenants.ts';

const baseUrl = process.env.DATABASE_URL ?? '';
const urlFor = (database: string) => {
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return url.toString();
};

async function expectOutage(t: TestApp, tenant: Tenant) {
  const consent = { consent: { session_id: 'outage', user_preferences: { accept_type: 'all' } } };
  const answers = [
    await call(t.app, 'GET', '/api/v1/categories', { token: tenant.tokens.account }),
    await call(t.app, 'GET', '/api/v1/accounts', { token: tenant.tokens.partner }),
    await call(t.app, 'POST', '/api/v1/consents', { token: tenant.tokens.account, body: consent }),
    await call(t.app, 'POST', '/api/v1/auth', { body: { email: tenant.admin.email, password: 'whatever it is' } }),
    await call(t.app, 'GET', `/widget/${tenant.account.id}/config.json`),
    // A token this instance has never seen: its lookup itself meets the outage.
    await call(t.app, 'GET', '/api/v1/me', { token: generateToken('user').token }),
    await call(t.app, 'GET', '/readyz'),
  ];
  for (const answer of answers) {
    expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 503 });
    expect(answer.headers['retry-after']).toMatch(/^\d+$/);
    expect(answer.body.errors[0].code).toBe(503);
  }
}

async function expectServing(t: TestApp, tenant: Tenant) {
  expect((await call(t.app, 'GET', '/readyz')).body).toEqual({ status: 'ok' });
  expect((await call(t.app, 'GET', '/api/v1/categories', { token: tenant.tokens.account })).status).toBe(200);
}

describe.runIf(ENGINE === 'postgres')('a lost schema or database', () => {
  it('answers 503 + Retry-After on every route while the schema is dropped, and recovers once it is back', async () => {
    const t = await startApp();
    try {
      const tenant = await createTenant(t.services, 'Schema');
      await expectServing(t, tenant);
      const schema = t.services.config.databaseSchema!;
      await sql`drop schema ${sql.id(schema)} cascade`.execute(t.services.db);
      await expectOutage(t, tenant);
      await migrate(t.services.connection, schema);
      const again = await createTenant(t.services, 'Again');
      await expectServing(t, again);
    } finally {
      await t.close();
    }
  });

  describe('a dropped database', () => {
    const name = `consentry_gone_${randomBytes(4).toString('hex')}`;
    const admin = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: baseUrl, max: 1 }) }) });
    let t: TestApp;

    beforeAll(async () => {
      await sql`create database ${sql.id(name)}`.execute(admin);
      t = await startApp({ env: { DATABASE_URL: urlFor(name) } });
    });

    afterAll(async () => {
      await t?.close().catch(() => {});
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      await admin.destroy();
    });

    it('answers 503 + Retry-After on every route, and recovers once it is back', async () => {
      const tenant = await createTenant(t.services, 'Dropped');
      await expectServing(t, tenant);
      await sql`drop database ${sql.id(name)} with (force)`.execute(admin);
      await expectOutage(t, tenant);
      await sql`create database ${sql.id(name)}`.execute(admin);
      await migrate(t.services.connection, t.services.config.databaseSchema);
      await expectServing(t, await createTenant(t.services, 'Back'));
    });
  });

  it('refuses to start on a database that does not exist with one line saying what to do', () => {
    const run = spawnSync(process.execPath, builtEntry('server'), {
      env: { ...process.env, DATABASE_URL: urlFor(`consentry_missing_${randomBytes(4).toString('hex')}`), PORT: '0', LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^consentry: cannot start: the database does not exist \(.*\); create it .* or fix the name in DATABASE_URL\n$/);
  });
});
