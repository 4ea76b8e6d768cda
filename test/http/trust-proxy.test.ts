/**
 * TRUST_PROXY as a hop count or as the proxies' addresses: the client is the right-most entry of
 * X-Forwarded-For that no trusted proxy wrote, so the entries a client writes on the left change
 * neither the address its login limit counts nor the one kept with its consent.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { TestApp } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';
import { insertCategory } from '../helpers/records.ts';
import { createTenant } from '../helpers/tenants.ts';

/** The balancer's own address, as the service's socket sees it. */
const BALANCER = '10.0.0.5';
/** The visitor's address, as the balancer appends it to X-Forwarded-For. */
const VISITOR = '203.0.113.77';

const forged = (i: number) => `198.51.${i % 250}.${(i * 7) % 250}`;

/** Logins through the balancer, each with a different left-most entry the client wrote. */
async function rotatingLogins(t: TestApp, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await t.app.inject({
      method: 'POST', url: '/api/v1/auth', remoteAddress: BALANCER,
      headers: { 'x-forwarded-for': `${forged(i)}, ${VISITOR}` },
      payload: { email: `nobody${i}@example.test`, password: 'wrong password' },
    });
    statuses.push(res.statusCode);
  }
  return statuses;
}

/** A consent recorded through the balancer with a forged left-most entry; answers the (masked) address stored with it. */
async function consentAddress(t: TestApp): Promise<string | null> {
  const tenant = await createTenant(t.services, 'Proxied');
  const necessary = await insertCategory(t.services, tenant.account.id, { name: 'Necessary', required: true });
  const res = await t.app.inject({
    method: 'POST', url: '/api/v1/consents', remoteAddress: BALANCER,
    headers: { authorization: `Bearer ${tenant.tokens.account}`, 'x-forwarded-for': `198.51.100.9, ${VISITOR}` },
    payload: { consent: { session_id: 'behind-proxy', user_preferences: { accept_type: 'necessary', accepted_categories: [necessary.id], rejected_categories: [] } } },
  });
  expect(res.statusCode).toBe(201);
  const stored = await t.services.db.selectFrom('consents').select('ip_address').where('id', '=', res.json().data.id).executeTakeFirstOrThrow();
  expect(res.json().data.ip_address).toBe(stored.ip_address);
  return stored.ip_address;
}

describe('TRUST_PROXY', () => {
  for (const [label, value] of [['a hop count of 1', '1'], ['a list of proxy addresses and ranges', '192.0.2.1, 10.0.0.0/8']]) {
    describe(label, () => {
      const { t } = fileApp({ env: { TRUST_PROXY: value, AUTH_RATE_LIMIT_PER_MIN: '5' } });

      it('counts logins against the address the balancer appended, whatever the client writes before it', async () => {
        expect(await rotatingLogins(t, 7)).toEqual([401, 401, 401, 401, 401, 429, 429]);
      });

      it('keeps the address the balancer appended with a consent, masked', async () => {
        expect(await consentAddress(t)).toBe('203.0.113.0');
      });

      // A hop count cannot tell the balancer from a client that reaches the service directly (the
      // README says so); a list can.
      if (value !== '1') it('ignores X-Forwarded-For sent by a client that connects directly', async () => {
        const remaining = async (forwardedFor: string) => {
          const res = await t.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: '192.0.2.200', headers: { 'x-forwarded-for': forwardedFor } });
          expect(res.statusCode).toBe(401);
          return Number(res.headers['x-ratelimit-remaining']);
        };
        // Both count against the socket's address, the one window: a believed header would open two.
        const first = await remaining('198.51.100.1');
        expect(await remaining('198.51.100.2')).toBe(first - 1);
      });
    });
  }

  it('reads true, false, a hop count and a list, and names a wrong entry', () => {
    const read = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy;
    expect(read('true')).toBe(true);
    expect(read('false')).toBe(false);
    expect(read('0')).toBe(false);
    expect(read('2')).toBe(2);
    expect(read('10.0.0.5, fd00::/8,loopback')).toEqual(['10.0.0.5', 'fd00::/8', 'loopback']);
    expect(loadConfig({}).trustProxy).toBe(false);
    for (const wrong of ['10.0.0.0/33', 'proxy.example', '10.0.0.5,', '::1/129', '-1']) {
      expect(() => read(wrong)).toThrow('TRUST_PROXY must be true, false, a number of proxies, or a comma-separated list of proxy addresses and ranges');
    }
  });
});
