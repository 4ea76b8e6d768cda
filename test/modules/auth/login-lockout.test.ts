/**
 * Wrong passwords are braked per email and client IP, and per email from every IP only for the IPs
 * that already failed: a guesser cannot lock the owner out, and cannot escape the brake by changing
 * the email's case or spaces. Runs on the in-memory limits and, with REDIS_URL, on Redis's.
 */
import { describe, expect, it } from 'vitest';
import { createUser, PASSWORD } from '../../helpers/tenants.ts';
import { fileApp } from '../../helpers/file-app.ts';

/** Wrong passwords per email from one IP per hour, and from every IP. */
const PER_IP = 3;
const PER_EMAIL = 30;

const { t } = fileApp({
  env: { AUTH_RATE_LIMIT_PER_MIN: '10', LOGIN_FAILURES_PER_IP_PER_HOUR: String(PER_IP), LOGIN_EMAIL_RATE_LIMIT_PER_HOUR: String(PER_EMAIL) },
});

const login = (ip: string, email: string, password = 'wrong password') =>
  t.app.inject({ method: 'POST', url: '/api/v1/auth', remoteAddress: ip, payload: { email, password } });
const statuses = async (ip: string, emails: string[], password?: string) => {
  const answers: number[] = [];
  for (const email of emails) answers.push((await login(ip, email, password)).statusCode);
  return answers;
};

describe('wrong passwords from one IP', () => {
  it('are refused past the budget for that email, in any case and spacing, even the right one', async () => {
    const { user } = await createUser(t.services, 'Guessed');
    const spellings = [user.email, user.email.toUpperCase(), `  ${user.email}\t`];
    expect(await statuses('10.43.0.1', spellings)).toEqual([401, 401, 401]);
    const refused = await login('10.43.0.1', ` ${user.email.replace(/^./, (c) => c.toUpperCase())}`, PASSWORD);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ errors: [{ code: 429, message: 'Too many requests. Please retry later.' }] });
    // The hour's window, not the minute of the IP's own login budget.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    expect(refused.headers['x-ratelimit-limit']).toBe(String(PER_IP));
    // The same IP may still sign in to another login; the owner, from elsewhere, to this one.
    const other = await createUser(t.services, 'Neighbour');
    expect((await login('10.43.0.1', other.user.email, PASSWORD)).statusCode).toBe(200);
    expect((await login('10.43.0.2', user.email, PASSWORD)).statusCode).toBe(200);
  });

  it('count only when wrong: signing in does not use the budget up', async () => {
    const { user } = await createUser(t.services, 'Regular');
    for (let i = 0; i < PER_IP + 2; i++) expect((await login(`10.44.${i}.1`, user.email, PASSWORD)).statusCode).toBe(200);
    const ip = '10.44.9.9';
    expect(await statuses(ip, [user.email, user.email])).toEqual([401, 401]);
    expect((await login(ip, user.email, PASSWORD)).statusCode).toBe(200);
    expect((await login(ip, user.email, PASSWORD)).statusCode).toBe(200);
    expect(await statuses(ip, [user.email, user.email])).toEqual([401, 429]);
  });
});

describe('wrong passwords from many IPs', () => {
  it('do not lock the owner out: past the email\'s budget an IP without failures still signs in', async () => {
    const { user } = await createUser(t.services, 'Target');
    // 30 wrong passwords from ten IPs, three each (every IP within its own budgets), in two spellings.
    for (let i = 0; i < 10; i++) {
      const spelling = i % 2 ? user.email.toUpperCase() : ` ${user.email} `;
      expect(await statuses(`10.45.${i}.1`, [spelling, spelling, spelling])).toEqual([401, 401, 401]);
    }
    // Past the email's budget a fresh IP still has its password checked, once: 33 wrong in all.
    const late = ['10.45.100.1', '10.45.101.1', '10.45.102.1'];
    for (const ip of late) expect(await statuses(ip, [user.email])).toEqual([401]);
    // An IP that failed is then refused, with the right password too, before its own budget ends.
    for (const ip of late) {
      const refused = await login(ip, user.email, PASSWORD);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['x-ratelimit-limit']).toBe(String(PER_EMAIL));
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    }
    // The owner, from an IP that sent no wrong password, signs in, in any spelling.
    expect((await login('10.45.200.1', user.email, PASSWORD)).statusCode).toBe(200);
    expect((await login('10.45.201.1', ` ${user.email.toUpperCase()}`, PASSWORD)).statusCode).toBe(200);
  });
});
