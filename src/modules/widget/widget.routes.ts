import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Chunk } from '../../../banner/paths.ts';
import { ForbiddenError, NotFoundError } from '../../http/app-errors.ts';
import { jsonBodyParser } from '../../http/json-body.ts';
import { after, settle } from '../../lib/maybe-promise.ts';
import type { RoutesPlugin } from '../../services.ts';
import { ErrorList, ValidationErrorList } from '../../http/schemas.ts';
import { ReceiptParams, ReceiptQuery, ReceiptSchema, toReceipt } from '../consent-proof/consent-proof.schema.ts';
import { idempotencyKeyHeader, visitorContext } from '../consents/consents.service.ts';
import { bannerScriptHandler, chunkFileHandler } from './banner-script.routes.ts';
import { registerDeclarationRoutes } from './declaration.routes.ts';
import { originAllowed, WidgetAccounts } from './widget-accounts.ts';
import { sendVendorFile, TcfVendorFiles, tcfVendorsOf } from './tcf-vendor-files.ts';
import type { WidgetAccount } from './widget.repository.ts';
import { bannerConfig, countPageview, recordVisitorConsent, visitorReceipt, visitorRegion } from './widget.service.ts';
import { ChunkFileParams, RecordedConsent, TcfVendorsQuery, VisitorRegion, WidgetConfig, WidgetConfigQuery, WidgetConsentBody, WidgetPageviewBody, WidgetParams, WidgetScriptParams } from './widget.schema.ts';

declare module 'fastify' {
  interface FastifyRequest {
    widgetAccount: WidgetAccount | undefined;
    /** The request's Origin is one of the account's: decided once, for CORS and for the route. */
    widgetOriginAllowed: boolean;
  }
}

const WIDGET_BODY_LIMIT = 16 * 1024;
const tags = ['Widget (public)'];
const errors = { 400: ErrorList, 403: ErrorList, 404: ErrorList, 413: ErrorList, 415: ErrorList, 429: ErrorList, 500: ErrorList, 503: ErrorList };

/** The answers of a route that serves a script: the script, 304 on a matching ETag, 404 as a JavaScript comment. */
const scriptResponses = (script: string, notFound: string) => ({
  200: { description: script, content: { 'text/javascript': { schema: { type: 'string' } } } },
  304: { description: 'Not modified (If-None-Match)', type: 'null' },
  404: { description: notFound, content: { 'text/javascript': { schema: { type: 'string' } } } },
  429: ErrorList,
  500: ErrorList,
  503: ErrorList,
});

/** The account named in the path, for the CORS decision made before routing params exist. */
const accountIdIn = (url: string) => /^\/widget\/([^/?.]+)/.exec(url)?.[1] ?? '';

/** The public routes a website's banner calls: no token, CORS limited to the account's domains. */
export const widgetRoutes: RoutesPlugin = async (app, { services }) => {
  const accounts = new WidgetAccounts(services.db);
  app.decorateRequest('widgetAccount', undefined);
  app.decorateRequest('widgetOriginAllowed', false);

  /** The account, and CORS for the account's own domains only (the answer depends on the Origin: `Vary`). */
  const attachAccount = (request: FastifyRequest, reply: FastifyReply, account: WidgetAccount | undefined) => {
    const origin = request.headers.origin;
    request.widgetAccount = account;
    request.widgetOriginAllowed = !!origin && !!account && originAllowed(account, origin);
    reply.header('vary', 'Origin');
    if (request.widgetOriginAllowed) reply.header('access-control-allow-origin', origin);
  };
  // Callback style: a cached account is admitted without a promise, as every banner request needs it.
  // CORS is set here rather than by @fastify/cors, whose delegator merges and normalises its options
  // again on every request for a decision made per request. Measured again on 2026-12-06 with the
  // plugin configured to the same answers (its delegator, this hook's onError path kept), in five
  // alternating pairs of `npm run bench` runs on PostgreSQL (three with ours first, two with the
  // plugin first), plugin against this hook, medians of the pairs: the banner script 0.53× the req/s
  // (server CPU per request +32%), its 304 revalidation 0.63× (+43%); a recorded consent, three
  // pairs, 1.09× (+3%, within the noise).
  const findAccount = (request: FastifyRequest, reply: FastifyReply) =>
    after(accounts.get(accountIdIn(request.url)), (account) => attachAccount(request, reply, account));
  app.addHook('onRequest', (request, reply, done) => settle(() => findAccount(request, reply), done));
  // A refusal made before that hook ran (the per-IP throttle's 429 comes first) still carries CORS
  // for the account's domains, so that the banner can read it and its Retry-After. Errors only.
  app.addHook('onError', (request, reply, _error, done) => {
    if (reply.hasHeader('vary')) return done();
    settle(() => findAccount(request, reply), () => done());
  });
  // The preflight of the banner's calls, for the account's own domains, answered before any body is
  // read; any other Origin is refused as its request would be (403); an OPTIONS that asks for no
  // method, or names no account, finds no such route.
  const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.widgetOriginAllowed || request.headers['access-control-request-method'] === undefined) return;
    reply.code(204)
      .header('access-control-allow-methods', 'GET, POST')
      .header('access-control-allow-headers', 'Content-Type, Idempotency-Key')
      .header('access-control-max-age', '600')
      .send();
  };
  app.options('/widget/*', { config: { auth: 'public', throttle: 'widget' }, schema: { hide: true }, preParsing: preflight },
    async (request, reply) => {
      if (request.widgetAccount && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined) {
        throw new ForbiddenError('Origin is not allowed for this account');
      }
      // An unknown account is answered as on every widget route.
      if (!request.widgetAccount && request.headers['access-control-request-method'] !== undefined) throw new NotFoundError();
      return reply.callNotFound();
    });
  // navigator.sendBeacon posts text/plain: accept JSON sent that way (it spares the preflight).
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: WIDGET_BODY_LIMIT }, jsonBodyParser(app));

  /** The account, and the page's right to use it: a foreign origin is refused, a missing one is a server. */
  function usableAccount(request: FastifyRequest): WidgetAccount {
    const account = request.widgetAccount;
    if (!account) throw new NotFoundError();
    if (request.headers.origin !== undefined && !request.widgetOriginAllowed) {
      throw new ForbiddenError('Origin is not allowed for this account');
    }
    return account;
  }
  /**
   * The account and the page's right to use it are checked before the request's body or query: an
   * unknown account is 404 and a foreign origin 403 whatever else the request holds.
   */
  const admitted = (request: FastifyRequest, _reply: FastifyReply, _payload: unknown, done: (error?: Error) => void) => {
    try {
      usableAccount(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  };

  app.get('/widget/:account_id.js', {
    config: { auth: 'public', throttle: 'widget' },
    schema: {
      operationId: 'widgetScript', tags,
      summary: 'The banner script a website loads: one tag, first in <head>',
      params: WidgetScriptParams,
      response: scriptResponses('The script (text/javascript), compressed when the client accepts it', 'Unknown account: a JavaScript comment'),
    },
  }, bannerScriptHandler(services));

  const chunkFiles: [Chunk, string, string][] = [
    ['gpp', 'widgetGppFile', 'The IAB GPP file (`__gpp`) the banner loads in opt-out regions'],
    ['extras', 'widgetExtrasFile', 'The cookie declaration and the placeholders of embedded content, which the banner loads on pages that use them'],
    ['tcf', 'widgetTcfFile', 'The IAB TCF file (`__tcfapi` and its screens) the banner of a TCF account loads in opt-in regions'],
  ];
  for (const [chunk, operationId, summary] of chunkFiles) {
    app.get(`/widget/${chunk}.:hash.js`, {
      config: { auth: 'public', throttle: 'widget' },
      schema: {
        operationId, tags,
        summary: `${summary}; its name is its content hash`,
        params: ChunkFileParams,
        response: scriptResponses('The script (text/javascript), compressed when the client accepts it; cached for good', 'No such file: a JavaScript comment'),
      },
    }, chunkFileHandler(services, chunk));
  }

  app.get('/widget/:account_id/config.json', {
    config: { auth: 'public', throttle: 'widget' },
    preParsing: admitted,
    schema: {
      operationId: 'widgetConfig', tags,
      summary: 'The banner configuration: categories and their finalised storage items',
      params: WidgetParams,
      querystring: WidgetConfigQuery,
      response: { 200: WidgetConfig, ...errors },
    },
  }, async (request, reply) => {
    const config = await bannerConfig(services, usableAccount(request), request.query.session_id);
    reply.header('cache-control', 'no-store');
    return { data: config };
  });

  const vendorFiles = new TcfVendorFiles();
  app.get('/widget/:account_id/tcf-vendors.json', {
    config: { auth: 'public', throttle: 'widget' },
    preParsing: admitted,
    schema: {
      operationId: 'widgetTcfVendors', tags,
      summary: "The IAB Global Vendor List cut to the account's TCF vendors, in GVL v3 form, its texts in `lang` where translated (else English)",
      description: 'For `new GVL(json)` of @iabtechlabtcf/core. Not found for an account without TCF on, as for an unknown account. Cacheable: ETag, If-None-Match',
      params: WidgetParams,
      querystring: TcfVendorsQuery,
      response: {
        200: { description: 'The vendor list (GVL v3 JSON); Content-Language names the translation used', content: { 'application/json': { schema: { type: 'object' } } } },
        304: { description: 'Not modified (If-None-Match)', type: 'null' },
        ...errors,
      },
    },
  }, async (request, reply) => {
    const account = usableAccount(request);
    const [banner, current] = await Promise.all([services.bannerScripts.get(account.id), services.vendorLists.current()]);
    const { vendorIds, gvl } = tcfVendorsOf(banner?.config.tcf, current);
    return sendVendorFile(request, reply, await vendorFiles.get(gvl, vendorIds, request.query.lang));
  });

  // The answer depends on the visitor's address and the CDN's headers as well as the Origin.
  const regionVary = ['Origin', services.config.geoCountryHeader, services.config.geoRegionHeader].filter(Boolean).join(', ');
  app.get('/widget/:account_id/region', {
    config: { auth: 'public', throttle: 'widget' },
    preParsing: admitted,
    schema: {
      operationId: 'widgetRegion', tags,
      summary: "Where the visitor is and the banner mode there (their address is used for the lookup alone, never kept)",
      params: WidgetParams,
      response: { 200: VisitorRegion, ...errors },
    },
  }, async (request, reply) => {
    const region = await visitorRegion(services, usableAccount(request), request);
    reply.header('cache-control', 'no-store').header('vary', regionVary);
    // The banner asks with credentials so that Chromium sends the request on the connection that
    // brought the script (requests without credentials go on sockets of their own, a new TCP and TLS
    // handshake on the visitor's first page). The service sets no cookie on this origin to send.
    if (request.widgetOriginAllowed) reply.header('access-control-allow-credentials', 'true');
    return region;
  });

  app.post('/widget/:account_id/views', {
    config: { auth: 'public', throttle: 'views' },
    preParsing: admitted,
    bodyLimit: WIDGET_BODY_LIMIT,
    schema: {
      operationId: 'widgetPageview', tags,
      summary: 'Count a page the banner was loaded on, and the session it asked there, if any (the banner sends it as text/plain)',
      params: WidgetParams,
      body: WidgetPageviewBody,
      response: { 204: { description: 'Counted', type: 'null' }, ...errors },
    },
  }, async (request, reply) => {
    countPageview(services.visits, usableAccount(request), request.body?.session_id);
    return reply.code(204).send(null);
  });

  app.post('/widget/:account_id/consents', {
    config: { auth: 'public', throttle: 'widget' },
    preParsing: admitted,
    bodyLimit: WIDGET_BODY_LIMIT,
    schema: {
      operationId: 'widgetRecordConsent', tags,
      summary: 'Record a visitor\'s choice from the banner; committed before the answer',
      params: WidgetParams,
      body: WidgetConsentBody,
      response: { 201: RecordedConsent, 422: ValidationErrorList, ...errors },
    },
  }, async (request, reply) => {
    const account = usableAccount(request);
    const sent = request.body.consent;
    // Asked only when the banner sent no mode: the place it sent, else the visitor's, and the mode the rules give there.
    const locate = () => visitorRegion(services, account, request, sent);
    const key = request.body.idempotency_key ?? idempotencyKeyHeader(request.headers['idempotency-key']);
    const consent = await recordVisitorConsent(services, account, sent, visitorContext(request), locate, key);
    return reply.code(201).send({ data: { id: consent.id, created_at: consent.created_at.toISOString() } });
  });

  registerDeclarationRoutes(app, services, { admitted, usableAccount });

  app.get('/widget/:account_id/consents/:id', {
    config: { auth: 'public', throttle: 'widget' },
    preParsing: admitted,
    schema: {
      operationId: 'widgetConsentReceipt', tags,
      summary: 'A visitor\'s receipt: their consent and its link in the account\'s hash chain, for the session that gave it',
      params: ReceiptParams,
      querystring: ReceiptQuery,
      response: { 200: ReceiptSchema, ...errors },
    },
  }, async (request, reply) => {
    const row = await visitorReceipt(services.db, usableAccount(request), request.params.id, request.query.session_id);
    reply.header('cache-control', 'no-store');
    return toReceipt(row);
  });
};
