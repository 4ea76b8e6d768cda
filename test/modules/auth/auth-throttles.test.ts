/**
 * The password routes have separate per-IP budgets, so that logging in does not use up signing up,
 * changing a password or accepting an invitation. Wrong passwords per email address have budgets of
 * their own: login-lockout.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fileApp } from '../../helpers/file-app.ts';

const { t } = fileApp({ env: { AUTH_RATE_LIMIT_PER_MIN: '3', SIGNUP_ENABLED: 'true' } });

const send = (ip: string, method: 'POST' | 'PUT', url: string, payload: unknown, token?: string) =>
  t.app.inject({ method, url, remoteAddress: ip, payload: payload as object, headers: token ? { authorization: `Bearer ${token}` } : {} });
const login = (ip: string, email: string, password = 'wrong password') => send(ip, 'POST', '/api/v1/auth', { email, password });

describe('separate budgets per action', () => {
  it('lets one IP sign up, change its password and accept an invitation after using up its logins', async () => {
    const ip = '10.7.0.1';
    for (let i = 0; i < 3; i++) expect((await login(ip, `nobody${i}@example.test`)).statusCode).toBe(401);
    expect((await login(ip, 'nobody9@example.test')).statusCode).toBe(429);

    const signUp = await send(ip, 'POST', '/api/v1/users', { user: { name: 'New', email: 'new-user@example.test', password: 'long enough' } });
    expect(signUp.statusCode).toBe(201);
    const password = await send(ip, 'PUT', '/api/v1/password', {
      user: { current_password: 'long enough', password: 'longer still', password_confirmation: 'longer still' },
    }, signUp.json().token);
    expect(password.statusCode).toBe(200);
    const accept = await send(ip, 'POST', '/api/v1/account-invitations/accept', { invitation: { token: 'A'.repeat(43), password: 'long enough' } });
    expect(accept.statusCode).toBe(404);
    // Each action has its own window: signing up is limited on its own.
    for (let i = 0; i < 2; i++) await send(ip, 'POST', '/api/v1/users', { user: { name: 'N', email: `n${i}@example.test`, password: 'long enough' } });
    expect((await send(ip, 'POST', '/api/v1/users', { user: { name: 'N', email: 'n9@example.test', password: 'long enough' } })).statusCode).toBe(429);
  });
});

