/**
 * Requests with X-Forwarded-For while TRUST_PROXY is off: one warning in the log, not one per request.
 * TRUST_PROXY=true, which lets a client choose its address: one warning at start. Written before any
 * query: the embedded project only (vitest.config.ts).
 */
import { describe, expect, it } from 'vitest';
import { call, withApp } from '../helpers/app.ts';

const warnings = (lines: string[]) => lines.filter((line) => line.includes('X-Forwarded-For but TRUST_PROXY is off'));
const trustAll = (lines: string[]) => lines.filter((line) => line.includes('TRUST_PROXY=true believes every X-Forwarded-For entry'));

describe('the proxy warning', () => {
  it('warns once when requests carry X-Forwarded-For and TRUST_PROXY is off', async () => {
    const lines: string[] = [];
    await withApp({ env: { LOG_LEVEL: 'warn' }, logLines: lines }, async (t) => {
      await call(t.app, 'GET', '/healthz');
      expect(warnings(lines)).toEqual([]);
      for (let i = 0; i < 3; i++) await call(t.app, 'GET', '/healthz', { headers: { 'x-forwarded-for': `198.51.100.${i}` } });
      expect(warnings(lines)).toHaveLength(1);
      expect(JSON.parse(warnings(lines)[0]).level).toBe(40);
    });
  });

  it('warns at start that TRUST_PROXY=true lets a client choose its address, and not of X-Forwarded-For', async () => {
    const lines: string[] = [];
    await withApp({ env: { LOG_LEVEL: 'warn', TRUST_PROXY: 'true' }, logLines: lines }, async (t) => {
      expect(trustAll(lines)).toHaveLength(1);
      expect(JSON.parse(trustAll(lines)[0]).level).toBe(40);
      expect((await call(t.app, 'GET', '/healthz', { headers: { 'x-forwarded-for': '198.51.100.7' } })).status).toBe(200);
      expect(warnings(lines)).toEqual([]);
    });
  });

  it('says nothing with a hop count or the proxies\' addresses', async () => {
    for (const value of ['1', '10.0.0.0/8']) {
      const lines: string[] = [];
      await withApp({ env: { LOG_LEVEL: 'warn', TRUST_PROXY: value }, logLines: lines }, async (t) => {
        expect((await call(t.app, 'GET', '/healthz', { headers: { 'x-forwarded-for': '198.51.100.7' } })).status).toBe(200);
        expect([...warnings(lines), ...trustAll(lines)]).toEqual([]);
      });
    }
  });
});
