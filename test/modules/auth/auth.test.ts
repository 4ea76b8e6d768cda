import { describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/lib/token-secret.ts';
import { call, startApp } from '../../helpers/app.ts';
import { fileApp } from '../../helpers/file-app.ts';
import { createUser, PASSWORD } from '../../helpers/tenants.ts';

const { t, tenants: [tenant] } = fileApp({ env: { AUTH_RATE_LIMIT_PER_MIN: '1000', SIGNUP_ENABLED: 'true' }, tenants: ['Auth'] });

const login = (email: string, password: string) => call(t.app, 'POST', '/api/v1/auth', { body: { email, password } });

describe('POST /auth', () => {
  it('gives a 30-day user session token that works', async () => {
    const res = await login(tenant.admin.email, PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^csu_[0-9A-Za-z]{43}$/);
    expect(res.body.user).toEqual({ id: tenant.admin.id, name: tenant.admin.name, email: tenant.admin.email });
    const days = (Date.parse(res.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const me = await call(t.app, 'GET', '/api/v1/me', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.data.token_type).toBe('user');
    expect(me.body.data.user.id).toBe(tenant.admin.id);
  });

  it('matches the email case-insensitively', async () => {
    expect((await login(tenant.admin.email.toUpperCase(), PASSWORD)).status).toBe(200);
  });

  it('answers a wrong password and an unknown email alike', async () => {
    const wrong = await login(tenant.admin.email, 'not the password');
    const unknown = await login('nobody@example.test', PASSWORD);
    const expected = { errors: [{ code: 401, message: 'Invalid email or password' }] };
    expect(wrong).toMatchObject({ status: 401, body: expected });
    expect(unknown).toMatchObject({ status: 401, body: expected });
  });

  it('stores only the SHA-256 of a token', async () => {
    const { body } = await login(tenant.admin.email, PASSWORD);
    const rows = await t.services.db.selectFrom('api_tokens').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(body.token);
    expect(rows.some((row) => row.token_hash === hashToken(body.token))).toBe(true);
  });

  it('refuses a body without the fields', async () => {
    const res = await call(t.app, 'POST', '/api/v1/auth', { body: { email: tenant.admin.email } });
    expect(res).toMatchObject({ status: 422, body: { errors: [{ error: "Password can't be blank" }] } });
  });
});

describe('DELETE /auth', () => {
  it('revokes the token that made the request, at once', async () => {
    const { body } = await login(tenant.admin.email, PASSWORD);
    expect((await call(t.app, 'GET', '/api/v1/me', { token: body.token })).status).toBe(200);
    const out = await call(t.app, 'DELETE', '/api/v1/auth', { token: body.token });
    expect(out).toMatchObject({ status: 200, body: {} });
    const after = await call(t.app, 'GET', '/api/v1/me', { token: body.token });
    expect(after).toMatchObject({ status: 401, body: { errors: [{ code: 401, message: 'Missing, invalid or expired API token' }] } });
  });
});

describe('PUT /password', () => {
  it('changes the password and logs out the other sessions only', async () => {
    const { user } = await createUser(t.services, 'Changer');
    const first = (await login(user.email, PASSWORD)).body.token;
    const second = (await login(user.email, PASSWORD)).body.token;
    const res = await call(t.app, 'PUT', '/api/v1/password', {
      token: first,
      body: { user: { current_password: PASSWORD, password: 'a brand new secret', password_confirmation: 'a brand new secret' } },
    });
    expect(res).toMatchObject({ status: 200, body: { success: true } });
    expect((await call(t.app, 'GET', '/api/v1/me', { token: first })).status).toBe(200);
    expect((await call(t.app, 'GET', '/api/v1/me', { token: second })).status).toBe(401);
    expect((await login(user.email, PASSWORD)).status).toBe(401);
    expect((await login(user.email, 'a brand new secret')).status).toBe(200);
  });

  it('lists every problem as a 422', async () => {
    const { token } = await createUser(t.services, 'Sloppy');
    const res = await call(t.app, 'PUT', '/api/v1/password', {
      token,
      body: { user: { current_password: 'wrong', password: 'short', password_confirmation: 'other' } },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      errors: [
        { error: 'Current password is invalid' },
        { error: 'Password is too short (minimum is 8 characters)' },
        { error: "Password confirmation doesn't match Password" },
      ],
    });
  });
});

describe('POST /users', () => {
  it('signs up a user with a session token and never returns the password', async () => {
    const body = { user: { name: 'New Person', email: 'New.Person@Example.test', password: 'long enough' } };
    const res = await call(t.app, 'POST', '/api/v1/users', { body });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'New Person', email: 'new.person@example.test' });
    expect(Object.keys(res.body.data).sort()).toEqual(['created_at', 'email', 'id', 'name', 'updated_at']);
    expect(res.body.token).toMatch(/^csu_/);
    const stored = await t.services.db.selectFrom('users').selectAll().where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^\$argon2id\$/);
    const again = await call(t.app, 'POST', '/api/v1/users', { body });
    expect(again).toMatchObject({ status: 422, body: { errors: [{ error: 'Email has already been taken' }] } });
  });

  it('validates name, email and password', async () => {
    const res = await call(t.app, 'POST', '/api/v1/users', { body: { user: { name: '  ', email: 'nope', password: 'x' } } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toContainEqual({ error: 'Email is invalid' });
    // Every problem of the body at once, not the schema's first and then the rest.
    const blank = await call(t.app, 'POST', '/api/v1/users', { body: { user: { name: '', email: 'bad', password: 'x' } } });
    expect(blank.body.errors).toEqual([
      { error: "Name can't be blank" }, { error: 'Email is invalid' }, { error: 'Password is too short (minimum is 8 characters)' },
    ]);
  });

  it('is on by default (SIGNUP_ENABLED unset), as the contract says', async () => {
    const open = await startApp({ env: {} });
    try {
      const res = await call(open.app, 'POST', '/api/v1/users', { body: { user: { name: 'A', email: 'a@example.test', password: 'long enough' } } });
      expect(res.status).toBe(201);
      expect(res.body.token).toMatch(/^csu_/);
    } finally {
      await open.close();
    }
  });

  it('is off when SIGNUP_ENABLED=false', async () => {
    const closed = await startApp({ env: { SIGNUP_ENABLED: 'false' } });
    try {
      const res = await call(closed.app, 'POST', '/api/v1/users', { body: { user: { name: 'A', email: 'a@example.test', password: 'long enough' } } });
      expect(res).toMatchObject({ status: 403, body: { errors: [{ code: 403, message: 'Sign-up is disabled on this server' }] } });
      expect(await closed.services.db.selectFrom('users').select('id').where('email', '=', 'a@example.test').execute()).toEqual([]);
      // Whatever the body holds: it is not read.
      const invalid = await call(closed.app, 'POST', '/api/v1/users', { body: { user: { name: '', email: 'bad' } } });
      expect(invalid).toMatchObject({ status: 403, body: { errors: [{ code: 403, message: 'Sign-up is disabled on this server' }] } });
    } finally {
      await closed.close();
    }
  });
});

describe('GET /me', () => {
  it('tells each token type who it belongs to', async () => {
    const partner = await call(t.app, 'GET', '/api/v1/me', { token: tenant.tokens.partner });
    expect(partner.body.data).toMatchObject({ token_type: 'partner', partner: { id: tenant.partner.id }, user: null, account: null });
    const account = await call(t.app, 'GET', '/api/v1/me', { token: tenant.tokens.account });
    expect(account.body.data).toMatchObject({ token_type: 'account', partner: null, user: null, account: { id: tenant.account.id } });
  });
});
