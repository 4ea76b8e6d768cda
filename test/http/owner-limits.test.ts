/**
 * Minting tokens does not multiply the rate limit: all the tokens of one user or partner share a
 * window of their own (OWNER_RATE_LIMIT_MAX), and one owner holds at most TOKENS_PER_OWNER_MAX live
 * named tokens; one user owns at most ACCOUNTS_PER_USER_MAX accounts, and one user's or partner's
 * accounts have at most SCANS_PER_OWNER_MAX scans queued or running.
 */
import { describe, expect, it } from 'vitest';
import { issueToken } from '../../src/modules/tokens/tokens.service.ts';
import { call, startApp, type TestApp } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';
import { createTenant, createUser } from '../helpers/tenants.ts';

const { t, tenants: [tenant] } = fileApp({ env: { RATE_LIMIT_MAX: '5', OWNER_RATE_LIMIT_MAX: '8', TOKENS_PER_OWNER_MAX: '4' }, tenants: ['Owner'] });

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

describe('the cap on accounts per user', () => {
  // Both tests on one app: each counts the accounts of a user of its own.
  const { t: fresh } = fileApp({ env: { ACCOUNTS_PER_USER_MAX: '2' } });

  it('refuses a user an account past ACCOUNTS_PER_USER_MAX with 422 until one is deleted; a partner has no cap', async () => {
    const create = (token: string, name: string, extra: Record<string, unknown> = {}) =>
      call(fresh.app, 'POST', '/api/v1/accounts', { token, body: { account: { name, domain: `${name}.example.com`, ...extra } } });
    const { token } = await createUser(fresh.services, 'Founder');
    const first = await create(token, 'one');
    expect([first.status, (await create(token, 'two')).status]).toEqual([201, 201]);
    const over = await create(token, 'three');
    expect(over).toMatchObject({ status: 422, body: { errors: [{ error: 'Accounts are limited to 2 per user; delete one first' }] } });
    // Deleting one makes room.
    expect((await call(fresh.app, 'DELETE', `/api/v1/accounts/${first.body.id}`, { token })).status).toBe(200);
    expect((await create(token, 'four')).status).toBe(201);

    // Accounts a user is only a member of are not theirs: the tenant's member owns none.
    const tenant = await createTenant(fresh.services, 'Partnered');
    expect((await create(tenant.tokens.member, 'member-one')).status).toBe(201);
    // A partner manages many sites: no cap.
    const partnerMade = [];
    for (let i = 0; i < 4; i++) partnerMade.push((await create(tenant.tokens.partner, `client-${i}`, { group_id: tenant.group.id })).status);
    expect(partnerMade).toEqual([201, 201, 201, 201]);
  });

  it('holds for simultaneous requests (counted under a lock)', async () => {
    const { user, token } = await createUser(fresh.services, 'Hurried');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      call(fresh.app, 'POST', '/api/v1/accounts', { token, body: { account: { name: `Site ${i}`, domain: `site${i}.example.com` } } })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, ...Array(18).fill(422)]);
    const owned = await fresh.services.db.selectFrom('accounts').select('id').where('owner_id', '=', user.id).execute();
    expect(owned).toHaveLength(2);
  });
});

describe('the cap on scans per owner', () => {
  // No runner (SCAN_CONCURRENCY=0): queued scans stay queued. Loopback is a site like any other here.
  const env = { SCANS_PER_OWNER_MAX: '2', SCAN_CONCURRENCY: '0', SCAN_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_MAX: '100000' };
  const scan = { scan: { starting_url: 'http://127.0.0.1/' } };

  /** A user owning `count` accounts on loopback, made through the API. */
  async function siteOwner(app: TestApp, label: string, count: number) {
    const { token } = await createUser(app.services, label);
    const accounts: string[] = [];
    for (let i = 0; i < count; i++) {
      accounts.push((await call(app.app, 'POST', '/api/v1/accounts', { token, body: { account: { name: `${label} ${i}`, domain: '127.0.0.1' } } })).body.id);
    }
    return { token, accounts };
  }

  it('refuses a scan past SCANS_PER_OWNER_MAX queued or running over all of a user\'s accounts, with 422', async () => {
    const fresh = await startApp({ env });
    try {
      const queue = (token: string, accountId: string) => call(fresh.app, 'POST', `/api/v1/scans?account_id=${accountId}`, { token, body: scan });
      const busy = await siteOwner(fresh, 'Busy', 3);
      const first = await queue(busy.token, busy.accounts[0]);
      expect([first.status, (await queue(busy.token, busy.accounts[1])).status]).toEqual([201, 201]);
      const over = await queue(busy.token, busy.accounts[2]);
      expect(over).toMatchObject({
        status: 422,
        body: { errors: [{ error: 'Scans are limited to 2 queued or running at once per user or partner; wait for one to finish' }] },
      });
      // Another owner is not affected.
      const other = await siteOwner(fresh, 'Other', 1);
      expect((await queue(other.token, other.accounts[0])).status).toBe(201);
      // A cancelled scan makes room.
      expect((await call(fresh.app, 'DELETE', `/api/v1/scans/${first.body.data.id}?account_id=${busy.accounts[0]}`, { token: busy.token })).status).toBe(200);
      expect((await queue(busy.token, busy.accounts[2])).status).toBe(201);
    } finally {
      await fresh.close();
    }
  });

  it('counts a partner\'s accounts together, whoever administers them, and never refuses a scheduled rescan', async () => {
    const fresh = await startApp({ env });
    try {
      const tenant = await createTenant(fresh.services, 'Agency');
      // The tenant's own account has a user owner, but sits in the partner's group: the partner's.
      await call(fresh.app, 'PATCH', `/api/v1/accounts/${tenant.account.id}`, { token: tenant.tokens.partner, body: { account: { domain: '127.0.0.1' } } });
      const tokens: string[] = [tenant.tokens.admin];
      const accounts: string[] = [tenant.account.id];
      for (let i = 0; i < 3; i++) {
        const made = await call(fresh.app, 'POST', '/api/v1/accounts', {
          token: tenant.tokens.partner, body: { account: { name: `Client ${i}`, domain: '127.0.0.1', group_id: tenant.group.id } },
        });
        accounts.push(made.body.id);
        tokens.push((await call(fresh.app, 'POST', '/api/v1/api-tokens', { token: tenant.tokens.partner, body: { name: `c${i}`, account_id: made.body.id } })).body.token);
      }
      const answers = [];
      for (const token of tokens) answers.push((await call(fresh.app, 'POST', '/api/v1/scans', { token, body: scan })).status);
      expect(answers).toEqual([201, 201, 422, 422]);

      // A due rescan of another of the partner's accounts is queued all the same (refused, it would wait a week).
      const idle = accounts[3];
      await fresh.services.db.updateTable('accounts').set({ scan_schedule: 'weekly', next_scan_at: new Date(Date.now() - 1000) }).where('id', '=', idle).execute();
      expect(await fresh.services.scans.queueDueRescans()).toBe(1);
      const queued = await fresh.services.db.selectFrom('scans').select(['account_id', 'owner_id']).where('status', '=', 'queued').execute();
      expect(queued).toHaveLength(3);
      expect(queued.every((row) => row.owner_id === tenant.partner.id)).toBe(true);
    } finally {
      await fresh.close();
    }
  });
});
