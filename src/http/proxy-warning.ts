import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

/**
 * Two ways TRUST_PROXY can be wrong, said in the log. `true` believes every X-Forwarded-For entry,
 * so a client chooses the address its limits and its consents are kept under: said once at start.
 * Off behind a reverse proxy, every visitor seems to come from the proxy's address, so they all
 * share one per-IP limit (one widget limit for a whole site): the first request that carries
 * X-Forwarded-For says so, once per process.
 */
export function registerProxyWarning(app: FastifyInstance, trustProxy: Config['trustProxy']): void {
  if (trustProxy === true) {
    app.log.warn(
      'TRUST_PROXY=true believes every X-Forwarded-For entry, so a client can choose its own address and escape its per-IP limits; set TRUST_PROXY to the number of proxies in front of the service or to their addresses',
    );
  }
  if (trustProxy !== false) return;
  let warned = false;
  app.addHook('onRequest', (request, _reply, done) => {
    if (!warned && request.headers['x-forwarded-for'] !== undefined) {
      warned = true;
      app.log.warn(
        { remote_address: request.socket.remoteAddress },
        'requests carry X-Forwarded-For but TRUST_PROXY is off: every client seems to come from the proxy and shares its per-IP limits; behind a reverse proxy set TRUST_PROXY to the number of proxies or to their addresses',
      );
    }
    done();
  });
}
