import { describe, expect, it } from 'vitest';
import { call, WITH_REDIS } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';
import { createTenant } from '../helpers/tenants.ts';

const { t, tenants: [tenant] } = fileApp({ tenants: ['Limits'] });

describe('rate limits', () => {
  it('allows 300 requests per token in the window; the 301st is 429 with Retry-After', async () => {
    for (let i = 1; i <= 300; i++) {
      const res = await call(t.app, 'GET', '/api/v1/me', { token: tenant.tokens.admin });
      if (res.status !== 200) throw new Error(`request ${i} answered ${res.status}`);
      if (i === 1) {
        expect(res.headers['x-ratelimit-limit']).toBe('300');
        expect(res.headers['x-ratelimit-remaining']).toBe('299');
        expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(290);
      }
    }
    const limited = await call(t.app, 'GET', '/api/v1/me', { token: tenant.tokens.admin });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ errors: [{ code: 429, message: 'Too many requests. Please retry later.' }] });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 300).toBe(true);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    // Another token of the same tenant has its own budget.
    expect((await call(t.app, 'GET', '/api/v1/me', { token: tenant.tokens.partner })).status).toBe(200);
  });

  it('throttles the auth routes per client IP, 10 a minute', async () => {
    const login = (ip: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/auth', remoteAddress: ip, payload: { email: 'a@example.test', password: 'wrong pass' } });
    for (let i = 0; i < 10; i++) expect((await login('10.9.9.1')).statusCode).toBe(401);
    const limited = await login('10.9.9.1');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login('10.9.9.2')).statusCode).toBe(401);
  });

  it('limits requests without a valid token per client IP', async () => {
    const anonymous = () => t.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: '10.8.8.8' });
    for (let i = 0; i < 300; i++) await anonymous();
    expect((await anonymous()).statusCode).toBe(429);
  });
});

/**
 * Reads `read()` until it gives `expected` or half a second has passed, and answers its last value.
 * Pub/sub delivery is asynchronous: allow it a few milliseconds, never a cache lifetime.
 */
async function soon<T>(read: () => Promise<T>, expected: T): Promise<T> {
  let value = await read();
  for (let i = 0; i < 50 && value !== expected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    value = await read();
  }
  return value;
}

describe.runIf(WITH_REDIS)('state shared through Redis', () => {
  // A second instance of the same deployment (its schema and Redis prefix), for every test: each
  // test works with a tenant of its own.
  const { t: second } = fileApp({ shareWith: t });

  it('holds exactly 300 across two instances', async () => {
    const shared = await createTenant(t.services, 'Shared');
    const statuses: number[] = [];
    for (let i = 0; i < 320; i++) {
      const app = i % 2 === 0 ? t.app : second.app;
      statuses.push((await call(app, 'GET', '/api/v1/me', { token: shared.tokens.admin })).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(300);
    expect(statuses.slice(300).every((s) => s === 429)).toBe(true);
  });

  it('revoking on one instance is seen by the other at once', async () => {
    const shared = await createTenant(t.services, 'Revoke');
    expect((await call(second.app, 'GET', '/api/v1/me', { token: shared.tokens.member })).status).toBe(200);
    expect((await call(t.app, 'DELETE', '/api/v1/auth', { token: shared.tokens.member })).status).toBe(200);
    const status = await soon(async () => (await call(second.app, 'GET', '/api/v1/me', { token: shared.tokens.member })).status, 401);
    expect(status).toBe(401);
  });

  it('a category changed or deleted on one instance is seen by the other at once', async () => {
    const shared = await createTenant(t.services, 'Categories');
    const created = await call(t.app, 'POST', '/api/v1/categories', { token: shared.tokens.account, body: { category: { name: 'Shared' } } });
    const url = `/api/v1/categories/${created.body.data.id}`;
    const read = () => call(second.app, 'GET', url, { token: shared.tokens.account });
    expect((await read()).body.data.name).toBe('Shared');
    expect((await call(t.app, 'PUT', url, { token: shared.tokens.account, body: { category: { name: 'Renamed' } } })).status).toBe(200);
    expect(await soon(async () => (await read()).body.data.name, 'Renamed')).toBe('Renamed');
    expect((await call(t.app, 'DELETE', url, { token: shared.tokens.account })).status).toBe(200);
    expect(await soon(async () => (await read()).status, 404)).toBe(404);
  });

  it('stores every consent recorded through either instance', async () => {
    const shared = await createTenant(t.services, 'TwoWriters');
    const body = (i: number) => ({ consent: { session_id: `two-${i}`, user_preferences: { accept_type: 'all' } } });
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) =>
      call(i % 2 ? second.app : t.app, 'POST', '/api/v1/consents', { token: shared.tokens.account, body: body(i) })));
    expect(answers.filter((a) => a.status !== 201)).toEqual([]);
    const listed = await call(second.app, 'GET', '/api/v1/consents', { token: shared.tokens.account, query: { limit: '1' } });
    expect(listed.body.pagination.count).toBe(200);
    const rows = await t.services.db.selectFrom('consents').select('session_id').where('account_id', '=', shared.account.id).execute();
    expect(new Set(rows.map((r) => r.session_id)).size).toBe(200);
  });

  it('a demotion on one instance is seen by the other at once', async () => {
    const shared = await createTenant(t.services, 'Demoted');
    const consent = { consent: { session_id: 's', user_preferences: { accept_type: 'all' } } };
    expect((await call(second.app, 'POST', '/api/v1/consents', { token: shared.tokens.admin, body: consent })).status).toBe(201);
    const promoted = await call(t.app, 'GET', '/api/v1/account-users', { token: shared.tokens.admin });
    const member = promoted.body.data.find((m: { user: { id: string } }) => m.user.id === shared.member.id);
    expect((await call(t.app, 'PUT', `/api/v1/account-users/${member.id}`, { token: shared.tokens.admin, body: { account_user: { roles: { admin: true } } } })).status).toBe(200);
    expect((await call(second.app, 'POST', '/api/v1/consents', { token: shared.tokens.member, body: consent })).status).toBe(201);
    const demote = await call(t.app, 'PUT', `/api/v1/account-users/${member.id}`, { token: shared.tokens.admin, body: { account_user: { roles: { admin: false } } } });
    expect(demote.status).toBe(200);
    const status = await soon(async () => (await call(second.app, 'POST', '/api/v1/consents', { token: shared.tokens.member, body: consent })).status, 403);
    expect(status).toBe(403);
  });
});
