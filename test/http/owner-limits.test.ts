/**
 * Minting tokens does not multiply the rate limit: all the tokens of one user or partner share a
 * window of their own (OWNER_RATE_LIMIT_MAX), and one owner holds at most TOKENS_PER_OWNER_MAX live
 * named tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/modules/tokens/tokens.service.ts';
import { call, startApp, type TestApp } from '../helpers/app.ts';
import { createTenant, type Tenant } from '../helpers/tenants.ts';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startApp({ env: { RATE_LIMIT_MAX: '5', OWNER_RATE_LIMIT_MAX: '8', TOKENS_PER_OWNER_MAX: '4' } });
  tenant = await createTenant(t.services, 'Owner');
});
afterAll(async () => { await t.close(); });

describe('the limit per owner', () => {
  it('counts every token of a user together, account tokens they made included', async () => {
    const { db } = t.services;
    const userId = tenant.member.id;
    const tokens = [
      (await issueToken(db, { type: 'user', kind: 'api', userId })).token,
      (await issueToken(db, { type: 'user', kind: 'api', userId })).token,
      (await issueToken(db, { type: 'user', kind: 'session', userId })).token,
      (await issueToken(db, { type: 'account', kind: 'api', userId, accountId: tenant.account.id })).token,
    ];
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await call(t.app, 'GET', '/api/v1/me', { token: tokens[i % tokens.length] });
      statuses.push(res.status);
      if (i < 8) expect(res.headers['x-ratelimit-remaining']).toBe(String(Math.min(8 - i - 1, 5 - Math.floor(i / tokens.length) - 1)));
    }
    // Each token alone is far from its 5; together they pass 8.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
    const refused = await call(t.app, 'GET', '/api/v1/me', { token: tokens[0] });
    expect(refused).toMatchObject({ status: 429, body: { errors: [{ code: 429, message: 'Too many requests. Please retry later.' }] } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another user of the same account is not affected.
    expect((await call(t.app, 'GET', '/api/v1/me', { token: tenant.tokens.admin })).status).toBe(200);
  });

  it('counts a partner\'s tokens together', async () => {
    const { db } = t.services;
    const other = await createTenant(t.services, 'Partner owner');
    const second = (await issueToken(db, { type: 'partner', kind: 'api', partnerId: other.partner.id })).token;
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await call(t.app, 'GET', '/api/v1/groups', { token: i % 2 ? second : other.tokens.partner })).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('the cap on live tokens per owner', () => {
  it('refuses a token past the cap with 422 until one is revoked', async () => {
    const fresh = await startApp({ env: { TOKENS_PER_OWNER_MAX: '3' } });
    try {
      const owner = await createTenant(fresh.services, 'Capped');
      // createTenant gave the admin one named user token and one account token: two of three.
      const made = await call(fresh.app, 'POST', '/api/v1/api-tokens', { token: owner.tokens.admin, body: { name: 'third' } });
      expect(made.status).toBe(201);
      const over = await call(fresh.app, 'POST', '/api/v1/api-tokens', { token: owner.tokens.admin, body: { name: 'fourth' } });
      expect(over).toMatchObject({
        status: 422,
        body: { errors: [{ error: 'Api tokens are limited to 3 live tokens per user or partner; revoke one first' }] },
      });
      const overAccount = await call(fresh.app, 'POST', '/api/v1/api-tokens', { token: owner.tokens.admin, body: { name: 'acc', account_id: owner.account.id } });
      expect(overAccount.status).toBe(422);
      // Revoking one makes room.
      expect((await call(fresh.app, 'DELETE', `/api/v1/api-tokens/${made.body.data.id}`, { token: owner.tokens.admin })).status).toBe(200);
      expect((await call(fresh.app, 'POST', '/api/v1/api-tokens', { token: owner.tokens.admin, body: { name: 'again' } })).status).toBe(201);
    } finally {
      await fresh.close();
    }
  });
});
