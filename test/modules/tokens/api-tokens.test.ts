import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';

const { t, tenants: [tenant, other] } = fileApp({ tenants: ['Tokens', 'Other'] });

const create = (token: string, body: unknown) => call(t.app, 'POST', '/api/v1/api-tokens', { token, body });

describe('POST /api-tokens', () => {
  it('lets an account admin create an account token that acts on that account', async () => {
    const res = await create(tenant.tokens.admin, { api_token: { name: 'widget', account_id: tenant.account.id } });
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^csa_[0-9A-Za-z]{43}$/);
    expect(res.body.data).toMatchObject({
      name: 'widget', token_type: 'account', kind: 'api', account_id: tenant.account.id,
      token_hint: res.body.token.slice(-4), expires_at: null,
    });
    const me = await call(t.app, 'GET', '/api/v1/me', { token: res.body.token });
    expect(me.body.data.account.id).toBe(tenant.account.id);
  });

  it('lets the owning partner create an account token, and accepts the bare fields', async () => {
    const res = await create(tenant.tokens.partner, { name: 'ops', account_id: tenant.account.id });
    expect(res.status).toBe(201);
    expect(res.body.data.token_type).toBe('account');
  });

  it('creates a named user token without account_id, with an expiry when asked', async () => {
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const res = await create(tenant.tokens.admin, { api_token: { name: 'ci', expires_at: expires } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ token_type: 'user', expires_at: expires });
  });

  it('refuses a non-admin member (403), a foreign account (422) and a partner without account_id (422)', async () => {
    expect(await create(tenant.tokens.member, { account_id: tenant.account.id })).toMatchObject({
      status: 403, body: { errors: [{ code: 403, message: 'User must be an admin of this account' }] },
    });
    expect(await create(tenant.tokens.partner, { account_id: other.account.id })).toMatchObject({
      status: 422, body: { errors: [{ error: 'Account must exist' }] },
    });
    expect(await create(tenant.tokens.admin, { account_id: other.account.id })).toMatchObject({ status: 422 });
    expect(await create(tenant.tokens.partner, { name: 'x' })).toMatchObject({
      status: 422, body: { errors: [{ error: "Account id can't be blank" }] },
    });
    expect(await create(tenant.tokens.admin, { expires_at: '2000-01-01T00:00:00Z' })).toMatchObject({
      status: 422, body: { errors: [{ error: 'Expires at must be in the future' }] },
    });
  });

  it('expires a token at its expires_at', async () => {
    const res = await create(tenant.tokens.admin, { expires_at: new Date(Date.now() + 60_000).toISOString() });
    await t.services.db.updateTable('api_tokens').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', res.body.data.id).execute();
    t.services.tokens.forget((await t.services.db.selectFrom('api_tokens').select('token_hash').where('id', '=', res.body.data.id).executeTakeFirstOrThrow()).token_hash);
    expect(await call(t.app, 'GET', '/api/v1/me', { token: res.body.token })).toMatchObject({
      status: 401, body: { errors: [{ code: 401, message: 'Missing, invalid or expired API token' }] },
    });
    // Gone from the caller's list of live tokens too.
    const list = await call(t.app, 'GET', '/api/v1/api-tokens', { token: tenant.tokens.admin, query: { limit: '100' } });
    expect(list.body.data.map((row: { id: string }) => row.id)).not.toContain(res.body.data.id);
  });
});

describe('GET /api-tokens and DELETE /api-tokens/{id}', () => {
  it('lists only the caller\'s own tokens, never a secret, and revokes one at once', async () => {
    const created = await create(tenant.tokens.admin, { name: 'to revoke' });
    const list = await call(t.app, 'GET', '/api/v1/api-tokens', { token: tenant.tokens.admin, query: { limit: '100' } });
    expect(list.status).toBe(200);
    expect(list.body.data.map((row: { id: string }) => row.id)).toContain(created.body.data.id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);
    const partnerList = await call(t.app, 'GET', '/api/v1/api-tokens', { token: other.tokens.partner });
    expect(partnerList.body.data.map((row: { id: string }) => row.id)).not.toContain(created.body.data.id);

    expect((await call(t.app, 'GET', '/api/v1/me', { token: created.body.token })).status).toBe(200);
    const foreign = await call(t.app, 'DELETE', `/api/v1/api-tokens/${created.body.data.id}`, { token: other.tokens.admin });
    expect(foreign).toMatchObject({ status: 404, body: { errors: [{ code: 404, message: 'Record not found' }] } });
    const revoked = await call(t.app, 'DELETE', `/api/v1/api-tokens/${created.body.data.id}`, { token: tenant.tokens.admin });
    expect(revoked).toMatchObject({ status: 200, body: { message: 'API token was revoked' } });
    expect((await call(t.app, 'GET', '/api/v1/me', { token: created.body.token })).status).toBe(401);
    const again = await call(t.app, 'DELETE', `/api/v1/api-tokens/${created.body.data.id}`, { token: tenant.tokens.admin });
    expect(again.status).toBe(404);
  });
});
