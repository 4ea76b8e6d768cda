import type { FastifyInstance } from 'fastify';
import type { Draining } from './draining.ts';

/**
 * The headers that guard a JSON API's responses, written on every response, errors and 404s
 * included. Not those written for HTML pages (a content security policy, frame isolation): this
 * service answers JSON, and every byte and header counts on the hot paths. A fixed object set in
 * one synchronous hook costs a fraction of a general-purpose header plugin.
 */
const SECURITY_HEADERS = {
  'cross-origin-resource-policy': 'same-site',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
} as const;

/**
 * Also, while the instance drains (draining.ts), `Connection: close` on every response: keep-alive
 * connections end after their current request instead of carrying new ones to a stopping instance.
 * In this hook rather than one of its own: one hook less on every request.
 */
export function registerResponseHeaders(app: FastifyInstance, draining?: Draining): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(SECURITY_HEADERS);
    reply.header('x-request-id', request.id);
    if (draining?.active) reply.header('connection', 'close');
    done();
  });
}
