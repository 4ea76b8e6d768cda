import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isDatabaseUnavailable } from '../db/outage.ts';
import { AppError, RateLimitedError, UnauthorizedError } from './app-errors.ts';

/**
 * Prometheus metrics, in a registry of their own per process (prom-client). They exist only when
 * the operator asks for them (METRICS_TOKEN or METRICS_PORT): otherwise no hook runs and nothing
 * is counted, and the public port serves no /metrics.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requestDuration = new Histogram({
    name: 'consentry_http_request_duration_seconds',
    help: 'Time to answer a request, by route template and status (its _count is the requests by status)',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly consentBatchSize = new Histogram({
    name: 'consentry_consent_batch_size',
    help: 'Consents written by one INSERT and COMMIT of the consent writer',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500],
    registers: [this.registry],
  });
  readonly consentChainRaces = new Counter({
    name: 'consentry_consent_chain_races_total',
    help: 'Consent batches that found an account\'s chain head moved by another instance, and were chained again',
    registers: [this.registry],
  });
  readonly databaseErrors = new Counter({
    name: 'consentry_database_unavailable_total',
    help: 'Requests answered 503 because the database was unreachable, missing or refused the credentials',
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'consentry_rate_limit_refusals_total',
    help: 'Requests refused with 429, by route template',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  constructor(sources: {
    consentQueue: () => number;
    aiBacklog: () => number;
    pool: () => { total: number; idle: number; waiting: number } | undefined;
    redisUp: (() => boolean) | undefined;
  }) {
    collectDefaultMetrics({ register: this.registry, prefix: 'consentry_' });
    new Gauge({
      name: 'consentry_consent_queue_depth', help: 'Consents waiting for their batch to be committed',
      registers: [this.registry], collect() { this.set(sources.consentQueue()); },
    });
    new Gauge({
      name: 'consentry_ai_backlog', help: 'Storage items queued in memory for the AI',
      registers: [this.registry], collect() { this.set(sources.aiBacklog()); },
    });
    new Gauge({
      name: 'consentry_database_pool_connections', help: 'PostgreSQL pool connections: total, idle, and requests waiting for one',
      labelNames: ['state'] as const, registers: [this.registry],
      collect() {
        const stats = sources.pool();
        if (!stats) return;
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
      },
    });
    const redisUp = sources.redisUp;
    if (redisUp) {
      new Gauge({
        name: 'consentry_redis_up', help: '1 while Redis is reachable; 0 while limits and invalidations are per instance',
        registers: [this.registry], collect() { this.set(redisUp() ? 1 : 0); },
      });
    }
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Counts every request and failure of the app; serves /metrics behind the token when one is set. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.requestDuration.observe({ method: request.method, route, status_code: reply.statusCode }, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onError', (request, _reply, error, done) => {
    if (error instanceof RateLimitedError) metrics.rateLimited.inc({ route: request.routeOptions.url ?? 'unmatched' });
    else if (!(error instanceof AppError) && isDatabaseUnavailable(error)) metrics.databaseErrors.inc();
    done();
  });
  if (!token) return;
  const expected = digest(token);
  app.get('/metrics', { schema: { hide: true }, config: { auth: 'none' } }, async (request, reply) => {
    const sent = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!timingSafeEqual(digest(sent), expected)) throw new UnauthorizedError('Invalid metrics token');
    return reply.type(metrics.registry.contentType).send(await metrics.text());
  });
}

/** Metrics on a port of their own (METRICS_PORT), for a scraper on a private network: no token. */
export async function serveMetrics(metrics: Metrics, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    metrics.text().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
