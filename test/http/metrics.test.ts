/**
 * Prometheus metrics: off (and /metrics 404) unless asked for; behind METRICS_TOKEN on the API port,
 * or on a port of their own (METRICS_PORT). What they count is checked against what was done.
 */
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { serveMetrics } from '../../src/http/metrics.ts';
import { call, ENGINE, startApp, WITH_REDIS } from '../helpers/app.ts';
import { fileApp } from '../helpers/file-app.ts';

const TOKEN = 'scrape-me-please-0123456789';

/** The value of one sample line of the exposition text. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('without METRICS_TOKEN or METRICS_PORT', () => {
  it('collects nothing and serves no /metrics', async () => {
    const t = await startApp();
    try {
      expect(t.services.metrics).toBeUndefined();
      expect(await call(t.app, 'GET', '/metrics')).toMatchObject({ status: 404, body: { errors: [{ code: 404, message: 'Not found' }] } });
    } finally {
      await t.close();
    }
  });

  it('refuses a METRICS_TOKEN short enough to guess', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow('METRICS_TOKEN must have at least 16 characters');
  });
});

describe('with METRICS_TOKEN', () => {
  const { t, tenants: [tenant] } = fileApp({ env: { METRICS_TOKEN: TOKEN, RATE_LIMIT_MAX: '3', OWNER_RATE_LIMIT_MAX: '100' }, tenants: ['Metrics'] });
  const scrape = async () => {
    const res = await call(t.app, 'GET', '/metrics', { token: TOKEN });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.body as string;
  };

  it('answers only the token', async () => {
    for (const token of [undefined, 'scrape-me-please-0123456780', tenant.tokens.partner]) {
      expect(await call(t.app, 'GET', '/metrics', { token })).toMatchObject({ status: 401, body: { errors: [{ code: 401, message: 'Invalid metrics token' }] } });
    }
  });

  it('counts requests by route and status, rate-limit refusals, consent batches, queues and the database', async () => {
    const before = await scrape();
    const meLabels = 'method="GET",route="/api/v1/me",status_code="200"';
    const seen = sample(before, 'consentry_http_request_duration_seconds_count', meLabels) ?? 0;
    for (let i = 0; i < 4; i++) await call(t.app, 'GET', '/api/v1/me', { token: tenant.tokens.member });
    const consent = { consent: { session_id: 's', user_preferences: { accept_type: 'necessary' } } };
    expect((await call(t.app, 'POST', `/widget/${tenant.account.id}/consents`, { body: consent })).status).toBe(201);

    const text = await scrape();
    expect(sample(text, 'consentry_http_request_duration_seconds_count', meLabels)).toBe(seen + 3);
    expect(sample(text, 'consentry_http_request_duration_seconds_count', 'method="GET",route="/api/v1/me",status_code="429"')).toBe(1);
    expect(sample(text, 'consentry_http_request_duration_seconds_bucket', `le="5",${meLabels}`)).toBe(seen + 3);
    expect(sample(text, 'consentry_rate_limit_refusals_total', 'route="/api/v1/me"')).toBe(1);
    expect(sample(text, 'consentry_consent_batch_size_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'consentry_consent_batch_size_sum')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'consentry_consent_queue_depth')).toBe(0);
    // One instance alone never finds its chain heads moved.
    expect(sample(text, 'consentry_consent_chain_races_total')).toBe(0);
    expect(sample(text, 'consentry_ai_backlog')).toBe(0);
    expect(sample(text, 'consentry_database_unavailable_total')).toBe(0);
    expect(sample(text, 'consentry_process_resident_memory_bytes')).toBeGreaterThan(0);
    if (ENGINE === 'postgres') expect(sample(text, 'consentry_database_pool_connections', 'state="total"')).toBeGreaterThan(0);
    if (WITH_REDIS) expect(sample(text, 'consentry_redis_up')).toBe(1);
    else expect(sample(text, 'consentry_redis_up')).toBeUndefined();
  });

  it('keeps /metrics out of the OpenAPI document', async () => {
    const doc = await call(t.app, 'GET', '/api/v1/openapi.json');
    expect(Object.keys(doc.body.paths)).not.toContain('/metrics');
  });
});

describe('with METRICS_PORT', () => {
  it('serves the metrics on a port of their own without a token, and not on the API port', async () => {
    const t = await startApp({ env: { METRICS_PORT: '0' } });
    const server = await serveMetrics(t.services.metrics!, '127.0.0.1', 0);
    try {
      await call(t.app, 'GET', '/healthz');
      expect((await call(t.app, 'GET', '/metrics')).status).toBe(404);
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(sample(await res.text(), 'consentry_http_request_duration_seconds_count', 'method="GET",route="/healthz",status_code="200"')).toBe(1);
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      server.close();
      await t.close();
    }
  });
});
