import type { FastifyInstance } from 'fastify';

/**
 * Behind a reverse proxy without TRUST_PROXY every visitor seems to come from the proxy's address,
 * so they all share one per-IP limit (one widget limit for a whole site). The first request that
 * carries X-Forwarded-For while TRUST_PROXY is off says so in the log, once per process.
 */
export function registerProxyWarning(app: FastifyInstance, trustProxy: boolean): void {
  if (trustProxy) return;
  let warned = false;
  app.addHook('onRequest', (request, _reply, done) => {
    if (!warned && request.headers['x-forwarded-for'] !== undefined) {
      warned = true;
      app.log.warn(
        { remote_address: request.socket.remoteAddress },
        'requests carry X-Forwarded-For but TRUST_PROXY is off: every client seems to come from the proxy and shares its per-IP limits; set TRUST_PROXY=true behind a reverse proxy',
      );
    }
    done();
  });
}
