import { describe, expect, it } from 'vitest';
import { NEEDS_ACCOUNT, NEEDS_ADMIN } from '../../../src/http/app-errors.ts';
import { insertMembership } from '../../../src/modules/account-users/account-users.repository.ts';
import { issueToken } from '../../../src/modules/tokens/tokens.service.ts';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { pageAfterTheLast } from '../../helpers/pages.ts';
import { createTenant, createUser, type Tenant } from '../../helpers/tenants.ts';

const { t, tenants: [tenant, other] } = fileApp({ env: { RATE_LIMIT_MAX: '100000' }, tenants: ['Members', 'Elsewhere'] });

const errors = (code: number, message: string) => ({ errors: [{ code, message }] });
const invalid = (...messages: string[]) => ({ errors: messages.map((error) => ({ error })) });

async function membershipOf(accountId: string, userId: string) {
  return t.services.db.selectFrom('account_users').selectAll()
    .where('account_id', '=', accountId).where('user_id', '=', userId).executeTakeFirstOrThrow();
}

/** The exact response form of a membership, read back from the database. */
async function expected(owner: Tenant, user: { id: string; name: string; email: string }) {
  const row = await membershipOf(owner.account.id, user.id);
  return {
    id: row.id,
    roles: { admin: row.admin },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    user: { id: user.id, name: user.name, email: user.email },
    account: { id: owner.account.id, name: owner.account.name },
  };
}

/** A fresh account with its owner, one more admin and one member, to change without disturbing the others. */
async function freshTenant(label: string) {
  const fresh = await createTenant(t.services, label);
  const second = await createUser(t.services, `${label} second admin`);
  await insertMembership(t.services.db, fresh.account.id, second.user.id, true);
  return { ...fresh, second: second.user, secondToken: second.token };
}

describe('GET /account-users', () => {
  it('lists the members with their user and account, oldest first', async () => {
    const res = await call(t.app, 'GET', '/api/v1/account-users', { token: tenant.tokens.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pagination: { prev_url: '/api/v1/account-users?page=', next_url: '/api/v1/account-users?page=', count: 2, page: 1, prev: null, next: null },
      data: [await expected(tenant, tenant.admin), await expected(tenant, tenant.member)],
    });
  });

  it('is readable by a non-admin member and by the account token', async () => {
    for (const token of [tenant.tokens.member, tenant.tokens.account]) {
      const res = await call(t.app, 'GET', '/api/v1/account-users', { token });
      expect(res.status).toBe(200);
      expect(res.body.data.map((m: { user: { id: string } }) => m.user.id)).toEqual([tenant.admin.id, tenant.member.id]);
    }
  });

  it('pages with limit/page and sorts by created_at in either order', async () => {
    const paged = await createTenant(t.services, 'Paged');
    for (const name of ['Third', 'Fourth', 'Fifth']) {
      const { user } = await createUser(t.services, name);
      await insertMembership(t.services.db, paged.account.id, user.id, false);
    }
    const all = (await call(t.app, 'GET', '/api/v1/account-users', { token: paged.tokens.admin })).body.data;
    expect(all.map((m: { user: { name: string } }) => m.user.name)).toEqual(['Paged admin', 'Paged member', 'Third', 'Fourth', 'Fifth']);

    const page2 = await call(t.app, 'GET', '/api/v1/account-users', { token: paged.tokens.admin, query: { limit: '2', page: '2' } });
    expect(page2.body).toEqual({
      pagination: {
        prev_url: '/api/v1/account-users?page=1&limit=2', next_url: '/api/v1/account-users?page=3&limit=2',
        count: 5, page: 2, prev: 1, next: 3,
      },
      data: all.slice(2, 4),
    });
    const past = await call(t.app, 'GET', '/api/v1/account-users', { token: paged.tokens.admin, query: { limit: '2', page: '9' } });
    expect(past.body).toEqual(pageAfterTheLast('/api/v1/account-users', 9, 2, 5));
    const desc = await call(t.app, 'GET', '/api/v1/account-users', {
      token: paged.tokens.admin, query: { sort: 'created_at', order: 'desc', offset: '1', limit: '2' },
    });
    expect(desc.body.data).toEqual([all[3], all[2]]);
  });

  it('lets a user of several accounts pick one with account_id', async () => {
    const { user, token } = await createUser(t.services, 'Two hats');
    await insertMembership(t.services.db, tenant.account.id, user.id, false);
    await insertMembership(t.services.db, other.account.id, user.id, false);
    const unnamed = await call(t.app, 'GET', '/api/v1/account-users', { token });
    expect(unnamed).toMatchObject({ status: 401, body: errors(401, NEEDS_ACCOUNT) });
    const named = await call(t.app, 'GET', '/api/v1/account-users', { token, query: { account_id: other.account.id } });
    expect(named.status).toBe(200);
    expect(named.body.data.every((m: { account: { id: string } }) => m.account.id === other.account.id)).toBe(true);
    await t.services.db.deleteFrom('account_users').where('user_id', '=', user.id).execute();
  });
});

describe('GET /account-users/{id}', () => {
  it('answers one membership under data', async () => {
    const row = await membershipOf(tenant.account.id, tenant.member.id);
    const res = await call(t.app, 'GET', `/api/v1/account-users/${row.id}`, { token: tenant.tokens.member });
    expect(res).toMatchObject({ status: 200 });
    expect(res.body).toEqual({ data: await expected(tenant, tenant.member) });
  });

  it('is 404 for another account\'s membership and for an id that is no UUID', async () => {
    const foreign = await membershipOf(other.account.id, other.member.id);
    const res = await call(t.app, 'GET', `/api/v1/account-users/${foreign.id}`, { token: tenant.tokens.admin });
    expect(res).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
    const bad = await call(t.app, 'GET', '/api/v1/account-users/42', { token: tenant.tokens.admin });
    expect(bad).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
  });
});

describe('PUT /account-users/{id}', () => {
  it('grants and withdraws the admin role, which takes effect on the next request', async () => {
    const fresh = await createTenant(t.services, 'Promote');
    const row = await membershipOf(fresh.account.id, fresh.member.id);
    const url = `/api/v1/account-users/${row.id}`;
    const denied = await call(t.app, 'PUT', url, { token: fresh.tokens.member, body: { account_user: { roles: { admin: true } } } });
    expect(denied).toMatchObject({ status: 403, body: errors(403, NEEDS_ADMIN) });

    const up = await call(t.app, 'PUT', url, { token: fresh.tokens.admin, body: { account_user: { roles: { admin: true } } } });
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ data: await expected(fresh, fresh.member) });
    expect(up.body.data.roles).toEqual({ admin: true });
    expect(Date.parse(up.body.data.updated_at)).toBeGreaterThanOrEqual(row.updated_at.getTime());

    // Now an admin, the member may make writes: here, withdraw its own role.
    const down = await call(t.app, 'PUT', url, { token: fresh.tokens.member, body: { account_user: { roles: { admin: false } } } });
    expect(down).toMatchObject({ status: 200, body: { data: { id: row.id, roles: { admin: false } } } });
    expect((await membershipOf(fresh.account.id, fresh.member.id)).admin).toBe(false);
    const again = await call(t.app, 'PUT', url, { token: fresh.tokens.member, body: { account_user: { roles: { admin: true } } } });
    expect(again).toMatchObject({ status: 403, body: errors(403, NEEDS_ADMIN) });
  });

  it('never demotes the owner', async () => {
    const fresh = await freshTenant('Owner stays');
    const owner = await membershipOf(fresh.account.id, fresh.admin.id);
    const res = await call(t.app, 'PUT', `/api/v1/account-users/${owner.id}`, {
      token: fresh.secondToken, body: { account_user: { roles: { admin: false } } },
    });
    expect(res).toMatchObject({ status: 422, body: invalid('Account owner must remain an admin') });
    expect((await membershipOf(fresh.account.id, fresh.admin.id)).admin).toBe(true);
  });

  it('never demotes the last admin', async () => {
    const fresh = await freshTenant('Last admin');
    // An account without an owner (made by a partner) whose admins are the two members.
    await t.services.db.updateTable('accounts').set({ owner_id: null }).where('id', '=', fresh.account.id).execute();
    const first = await membershipOf(fresh.account.id, fresh.admin.id);
    const second = await membershipOf(fresh.account.id, fresh.second.id);
    const demote = (id: string) => call(t.app, 'PUT', `/api/v1/account-users/${id}`, {
      token: fresh.tokens.account, body: { account_user: { roles: { admin: false } } },
    });
    expect((await demote(first.id)).status).toBe(200);
    expect(await demote(second.id)).toMatchObject({ status: 422, body: invalid('Account must keep at least one admin') });
    expect((await membershipOf(fresh.account.id, fresh.second.id)).admin).toBe(true);
    // Demoting a member who is no admin is no change to the count.
    expect((await demote(first.id)).status).toBe(200);
  });

  it('validates the body (422) and answers 404 for another account', async () => {
    const row = await membershipOf(tenant.account.id, tenant.member.id);
    const url = `/api/v1/account-users/${row.id}`;
    const wrongType = await call(t.app, 'PUT', url, { token: tenant.tokens.admin, body: { account_user: { roles: { admin: 'yes' } } } });
    expect(wrongType).toMatchObject({ status: 422, body: invalid('Admin is invalid') });
    const missing = await call(t.app, 'PUT', url, { token: tenant.tokens.admin, body: {} });
    expect(missing).toMatchObject({ status: 422, body: invalid("Account user can't be blank") });
    const foreign = await membershipOf(other.account.id, other.member.id);
    const res = await call(t.app, 'PUT', `/api/v1/account-users/${foreign.id}`, {
      token: tenant.tokens.admin, body: { account_user: { roles: { admin: true } } },
    });
    expect(res).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
    expect((await membershipOf(other.account.id, other.member.id)).admin).toBe(false);
  });
});

describe('DELETE /account-users/{id}', () => {
  it('removes a member, who loses access to the account at once', async () => {
    const fresh = await createTenant(t.services, 'Leaver');
    const session = await issueToken(t.services.db, { type: 'user', kind: 'session', userId: fresh.member.id });
    const row = await membershipOf(fresh.account.id, fresh.member.id);
    expect((await call(t.app, 'GET', '/api/v1/account-users', { token: session.token })).status).toBe(200);

    const res = await call(t.app, 'DELETE', `/api/v1/account-users/${row.id}`, { token: fresh.tokens.admin });
    expect(res).toMatchObject({ status: 200, body: { message: 'Account user was removed successfully' } });
    expect(res.body).toEqual({ message: 'Account user was removed successfully' });

    for (const token of [session.token, fresh.tokens.member]) {
      const after = await call(t.app, 'GET', '/api/v1/account-users', { token });
      expect(after).toMatchObject({ status: 401, body: errors(401, NEEDS_ACCOUNT) });
    }
    const left = await call(t.app, 'GET', '/api/v1/account-users', { token: fresh.tokens.admin });
    expect(left.body.data.map((m: { user: { id: string } }) => m.user.id)).toEqual([fresh.admin.id]);
    // The account's own token is the account's, not the removed user's: it still works.
    expect((await call(t.app, 'GET', '/api/v1/account-users', { token: fresh.tokens.account })).status).toBe(200);
    const again = await call(t.app, 'DELETE', `/api/v1/account-users/${row.id}`, { token: fresh.tokens.admin });
    expect(again).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
  });

  it('never removes the owner nor the last admin', async () => {
    const fresh = await freshTenant('Keepers');
    const owner = await membershipOf(fresh.account.id, fresh.admin.id);
    const second = await membershipOf(fresh.account.id, fresh.second.id);
    const remove = (id: string) => call(t.app, 'DELETE', `/api/v1/account-users/${id}`, { token: fresh.tokens.account });
    expect(await remove(owner.id)).toMatchObject({ status: 422, body: invalid("Account owner can't be removed") });

    await t.services.db.updateTable('accounts').set({ owner_id: null }).where('id', '=', fresh.account.id).execute();
    expect((await remove(second.id)).status).toBe(200);
    expect(await remove(owner.id)).toMatchObject({ status: 422, body: invalid('Account must keep at least one admin') });
    const member = await membershipOf(fresh.account.id, fresh.member.id);
    expect((await remove(member.id)).status).toBe(200);
    expect(await t.services.db.selectFrom('account_users').select('user_id').where('account_id', '=', fresh.account.id).execute())
      .toEqual([{ user_id: fresh.admin.id }]);
  });

  it('is 403 for a non-admin member and 404 for another account\'s membership', async () => {
    const row = await membershipOf(tenant.account.id, tenant.admin.id);
    const denied = await call(t.app, 'DELETE', `/api/v1/account-users/${row.id}`, { token: tenant.tokens.member });
    expect(denied).toMatchObject({ status: 403, body: errors(403, NEEDS_ADMIN) });
    const foreign = await membershipOf(other.account.id, other.member.id);
    const res = await call(t.app, 'DELETE', `/api/v1/account-users/${foreign.id}`, { token: tenant.tokens.admin });
    expect(res).toMatchObject({ status: 404, body: errors(404, 'Record not found') });
    expect(await membershipOf(other.account.id, other.member.id)).toBeDefined();
  });
});
