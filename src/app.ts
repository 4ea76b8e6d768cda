import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import apiReference from '@scalar/fastify-api-reference';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { declareAccountParameter } from './http/account-parameter.ts';
import { declareRouteContract } from './http/route-contract.ts';
import { actorOf, registerAuth } from './http/auth.ts';
import { runAs } from './lib/actor-context.ts';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/error-handler.ts';
import { registerJsonBody } from './http/json-body.ts';
import { registerMetrics } from './http/metrics.ts';
import { registerProxyWarning } from './http/proxy-warning.ts';
import { registerRequestGuards } from './http/request-guards.ts';
import { registerResponseHeaders } from './http/response-headers.ts';
import { trustProxyOption } from './http/trust-proxy.ts';
import { registerValidators } from './http/validators.ts';
import { accountsRoutes } from './modules/accounts/accounts.routes.ts';
import { accountInvitationsRoutes } from './modules/account-invitations/account-invitations.routes.ts';
import { accountUsersRoutes } from './modules/account-users/account-users.routes.ts';
import { aiActionsRoutes } from './modules/ai-actions/ai-actions.routes.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { usersRoutes } from './modules/users/users.routes.ts';
import { bannerRoutes } from './modules/banner/banner.routes.ts';
import { tcfRoutes } from './modules/tcf/tcf.routes.ts';
import { categoriesRoutes } from './modules/categories/categories.routes.ts';
import { vendorServicesRoutes } from './modules/vendor-services/vendor-services.routes.ts';
import { storageItemsRoutes } from './modules/storage-items/storage-items.routes.ts';
import { groupsRoutes } from './modules/groups/groups.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { passwordResetsRoutes } from './modules/password-resets/password-resets.routes.ts';
import { tokensRoutes } from './modules/tokens/tokens.routes.ts';
import { dashboardRoutes } from './modules/dashboard/dashboard.routes.ts';
import { consentsRoutes } from './modules/consents/consents.routes.ts';
import { consentProofRoutes } from './modules/consent-proof/consent-proof.routes.ts';
import { auditLogRoutes } from './modules/audit-log/audit-log.routes.ts';
import { noticesRoutes } from './modules/notices/notices.routes.ts';
import { scansRoutes } from './modules/scans/scans.routes.ts';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.ts';
import { statsRoutes } from './modules/stats/stats.routes.ts';
import { widgetRoutes } from './modules/widget/widget.routes.ts';
import type { Services } from './services.ts';
import packageJson from '../package.json' with { type: 'json' };

export const API_PREFIX = '/api/v1';

export interface RouteEntry {
  method: string;
  url: string;
  auth: string | undefined;
  admin: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its access rule: the security table and the fuzzer walk it. */
    routeTable: RouteEntry[];
  }
}

/** Routes of the API and the widget must declare who may call them: forgetting is a startup error. */
function trackRoutes(app: FastifyInstance) {
  const routes: RouteEntry[] = [];
  app.decorate('routeTable', routes);
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    const preflight = [route.method].flat().every((method) => method === 'OPTIONS');
    if (auth === undefined && !preflight && /^\/(api|widget)\//.test(route.url)) {
      throw new Error(`Route ${route.method} ${route.url} declares no config.auth`);
    }
    for (const method of [route.method].flat()) {
      // HEAD mirrors GET; OPTIONS answers CORS preflights and carries no data.
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routes.push({ method, url: route.url, auth, admin: route.config?.admin === true });
    }
  });
}

/**
 * A client's request id is echoed when it is at most 128 characters of those tracing systems write
 * (a UUID, W3C's `traceparent`, AWS's `Root=1-…;Parent=…;Sampled=1`, base64): no spaces, quotes or
 * angle brackets, which a log viewer might render.
 */
const REQUEST_ID = /^[A-Za-z0-9._:=;/+-]{1,128}$/;

/** The dashboard's pages whose last path segment is a secret (an invitation's, a password reset's). */
const SECRET_PAGE = /^(\/+(?:invitations|reset-password)\/+)[^/]+/i;

/**
 * A request's URL as the log shows it: a secret in the path masked, and of the query only the
 * parameter names (a query may carry a token, a visitor's session id or an email address).
 */
export function loggedUrl(url: string): string {
  const at = url.indexOf('?');
  const [path, query] = at < 0 ? [url, undefined] : [url.slice(0, at), url.slice(at + 1)];
  const masked = path.replace(SECRET_PAGE, '$1********');
  if (query === undefined) return masked;
  const names = [...new Set([...new URLSearchParams(query).keys()])];
  return names.length > 0 ? `${masked}?${names.join('&')}` : masked;
}

export interface AppOptions {
  /** Where the JSON log lines go instead of pino's own stdout writer (the server's stdout; tests read them). */
  logStream?: { write(line: string): void };
}

/** A configured Fastify instance, not listening. */
export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger: { level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'], ...(options.logStream && { stream: options.logStream }) },
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: false,
    // The API reference is at /docs, as the contract names it: served there, not redirected to /docs/.
    rewriteUrl: (request) => {
      const url = request.url!;
      return url.startsWith('/docs') && (url.length === 5 || url[5] === '?') ? `/docs/${url.slice(5)}` : url;
    },
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (request) => {
      const sent = request.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    },
    connectionTimeout: 30_000,
    // A request that arrives on a connection accepted before the stop began is served, not refused
    // with 503: the client sent it to a listening instance (server.ts drains before it closes).
    return503OnClosing: false,
    requestTimeout: 30_000,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  trackRoutes(app);
  declareAccountParameter(app);
  declareRouteContract(app, API_PREFIX);
  registerValidators(app);
  registerErrorHandling(app);
  // Only JSON is a body here; text/plain must not slip through as a string.
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app);
  registerResponseHeaders(app, services.draining);
  // One line per request, at debug: access logs on every request would cost the hot paths more
  // than the requests themselves. Failures are logged where they are handled.
  if (config.logLevel === 'debug' || config.logLevel === 'trace') {
    app.addHook('onResponse', async (request, reply) => {
      request.log.debug({ method: request.method, url: loggedUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    });
  }
  registerProxyWarning(app, config.trustProxy);
  registerRequestGuards(app);
  if (services.metrics) registerMetrics(app, services.metrics, config.metricsToken);
  registerAuth(app, services);
  // Every change a request makes is made as its caller: the audit log names them (lib/actor-context.ts).
  app.addHook('preHandler', (request, _reply, done) => (request.method === 'GET' ? done() : runAs(actorOf(request.principal), done)));
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Consentry API',
        // One version for the package and its API document.
        version: packageJson.version,
        description: 'Consent management: accounts, categories, storage items, consents and the Partner API.',
      },
      servers: [{ url: config.publicUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });

  await app.register(healthRoutes, { services });
  const api = { services, prefix: API_PREFIX };
  await app.register(authRoutes, api);
  await app.register(usersRoutes, api);
  await app.register(passwordResetsRoutes, api);
  await app.register(tokensRoutes, api);
  await app.register(groupsRoutes, api);
  await app.register(accountsRoutes, api);
  await app.register(accountUsersRoutes, api);
  await app.register(accountInvitationsRoutes, api);
  await app.register(categoriesRoutes, api);
  await app.register(storageItemsRoutes, api);
  await app.register(vendorServicesRoutes, api);
  await app.register(consentsRoutes, api);
  await app.register(consentProofRoutes, api);
  await app.register(statsRoutes, api);
  await app.register(aiActionsRoutes, api);
  await app.register(bannerRoutes, api);
  await app.register(tcfRoutes, api);
  await app.register(scansRoutes, api);
  await app.register(webhooksRoutes, api);
  await app.register(noticesRoutes, api);
  await app.register(auditLogRoutes, api);
  await app.register(widgetRoutes, { services });

  app.get(`${API_PREFIX}/openapi.json`, { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger());
  await app.register(apiReference, {
    routePrefix: '/docs',
    // The script's address is absolute: the page is served at /docs as well as at /docs/.
    configuration: { url: `${API_PREFIX}/openapi.json`, title: 'Consentry API', cdn: '/docs/js/scalar.js' },
  });
  await app.register(dashboardRoutes, { services });
  return app;
}
