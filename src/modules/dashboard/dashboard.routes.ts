import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { chooseEncoding } from '../../http/accept-encoding.ts';
import { NotFoundError } from '../../http/app-errors.ts';
import { etagMatches } from '../../http/if-none-match.ts';
import type { RoutesPlugin } from '../../services.ts';
import { loadSite, type SiteFile } from './dashboard-files.ts';
import { registerBannerPreviewPage } from './banner-preview.ts';

/**
 * What the dashboard's page may do: its own scripts and styles and calls to this origin, nothing
 * inline, no frames. A page that holds an API token must not run anyone else's script.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  // The reset and invitation pages carry their secret in the path: it must never leave in a Referer.
  'referrer-policy': 'no-referrer',
};

/** The service's own paths: a miss there is the API's 404, never the dashboard's page. */
const NOT_THE_DASHBOARD = /^\/(api|widget|docs|healthz|readyz|metrics)(\/|$)/;

/**
 * The router passes over a route whose path parameter is too long (`maxParamLength`) and lands
 * here, on the catch-all: such a path is that route's record not found, as it was without the
 * dashboard. These patterns tell it from a path no route has.
 */
function parameterisedRoutes(app: FastifyInstance): { method: string; pattern: RegExp }[] {
  return app.routeTable
    .filter((route) => route.url.includes(':'))
    .map((route) => ({
      method: route.method,
      pattern: new RegExp(`^${route.url.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`),
    }));
}

function send(request: FastifyRequest, reply: FastifyReply, file: SiteFile) {
  const encoding = chooseEncoding(request.headers['accept-encoding'], file.encodings);
  reply.header('content-type', file.type);
  reply.header('etag', file.etag);
  reply.header('vary', 'Accept-Encoding');
  reply.header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (file.type.startsWith('text/html')) reply.headers(PAGE_HEADERS);
  if (etagMatches(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  if (encoding !== 'identity') reply.header('content-encoding', encoding);
  return reply.send(file.body(encoding));
}

/**
 * Serves the dashboard at `/`: its built files from memory (ETag, `br`/`gzip`), and its page for
 * every other path without a file extension, where the single-page app routes on its own
 * (`/invitations/{secret}`, `/reset-password/{token}`, `/accounts/…`).
 */
export const dashboardRoutes: RoutesPlugin = async (app, { services }) => {
  let site: Map<string, SiteFile> | undefined | null = null;
  const files = () => (site === null ? (site = loadSite(services.config.webDir, services.config)) : site);
  let routes: ReturnType<typeof parameterisedRoutes> | undefined;

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.url.split('?', 1)[0];
    if (NOT_THE_DASHBOARD.test(raw)) {
      routes ??= parameterisedRoutes(app);
      if (routes.some((route) => route.method === request.method && route.pattern.test(raw))) throw new NotFoundError();
      return reply.callNotFound();
    }
    const path = decodeURIComponent(raw);
    const built = files();
    if (!built) return reply.callNotFound();
    const file = built.get(path) ?? (/\.[a-z0-9]+$/i.test(path) ? undefined : built.get('/index.html'));
    if (!file) return reply.callNotFound();
    return send(request, reply, file);
  };
  const options = { schema: { hide: true }, config: { auth: 'none' as const } };
  registerBannerPreviewPage(app);
  app.get('/', options, serve);
  app.get('/*', options, serve);
};
