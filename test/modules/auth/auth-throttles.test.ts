/**
 * The password routes have separate per-IP budgets, so that logging in does not use up signing up,
 * changing a password or accepting an invitation; logins are also limited per email address,
 * whatever the IP, against a slow guess spread over many addresses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { createTenant, createUser, PASSWORD, type Tenant } from '../../helpers/tenants.ts';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startApp({ env: { AUTH_RATE_LIMIT_PER_MIN: '3', LOGIN_EMAIL_RATE_LIMIT_PER_HOUR: '4', SIGNUP_ENABLED: 'true' } });
  tenant = await createTenant(t.services, 'Throttles');
});
afterAll(async () => { await t.close(); });

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

describe('logins per email address', () => {
  it('refuses a fifth login for one address within the hour, from whatever IP, even with the right password', async () => {
    const { user } = await createUser(t.services, 'Target');
    // The headers show the stricter of the two budgets: the IP's (3 a minute) while it has fewer left.
    const first = await login('10.6.0.1', user.email);
    expect([first.statusCode, first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']]).toEqual([401, '3', '2']);
    for (let i = 1; i < 4; i++) expect((await login(`10.6.${i}.1`, user.email)).statusCode).toBe(401);
    const fifth = await login('10.6.9.1', user.email.toUpperCase(), PASSWORD);
    expect(fifth.statusCode).toBe(429);
    expect(fifth.json()).toEqual({ errors: [{ code: 429, message: 'Too many requests. Please retry later.' }] });
    expect(Number(fifth.headers['retry-after'])).toBeGreaterThan(3000);
    // Another address from the same IPs is not affected.
    expect((await login('10.6.0.1', tenant.admin.email, PASSWORD)).statusCode).toBe(200);
  });
});
