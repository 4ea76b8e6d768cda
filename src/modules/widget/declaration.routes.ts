import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../http/app-errors.ts';
import { ErrorList } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import { DECLARATION_PAGE_CSP, declarationPage } from './declaration-page.ts';
import { acceptedLanguages, declarationLanguage, declarationOf, type Declaration } from './declaration.ts';
import { DeclarationQuery, DeclarationSchema } from './declaration.schema.ts';
import { SCRIPT_MAX_AGE_S } from './script-max-age.ts';
import type { WidgetAccount } from './widget.repository.ts';
import { WidgetParams } from './widget.schema.ts';

/** What the widget's plugin lends these routes: its admission check and the account it admitted. */
export interface WidgetAdmission {
  admitted: (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error?: Error) => void) => void;
  usableAccount: (request: FastifyRequest) => WidgetAccount;
}

/** As long as the banner script: the declaration changes when the script does. */
const CACHE_CONTROL = `public, max-age=${SCRIPT_MAX_AGE_S}`;
const tags = ['Widget (public)'];
const errors = { 400: ErrorList, 403: ErrorList, 404: ErrorList, 429: ErrorList, 500: ErrorList, 503: ErrorList };

type DeclarationRequest = FastifyRequest<{ Params: { account_id: string }; Querystring: { lang?: string } }>;

/**
 * `GET /widget/{id}/declaration.json` (what the banner script fetches for a page with
 * `<div id="consentry-declaration">`) and `GET /widget/{id}/declaration` (the same as a page).
 */
export function registerDeclarationRoutes(app: FastifyInstance, services: Services, { admitted, usableAccount }: WidgetAdmission): void {
  async function declarationFor(request: DeclarationRequest): Promise<{ declaration: Declaration; account: WidgetAccount }> {
    const account = usableAccount(request);
    const banner = await services.bannerScripts.get(account.id);
    if (!banner) throw new NotFoundError();
    const asked = request.query.lang ? [request.query.lang] : acceptedLanguages(request.headers['accept-language']);
    return { declaration: declarationOf(banner.config, declarationLanguage(banner.config, asked)), account };
  }

  app.get('/widget/:account_id/declaration.json', {
    config: { auth: 'public', throttle: 'widget' },
    preParsing: admitted,
    schema: {
      operationId: 'widgetDeclaration', tags,
      summary: 'The cookie declaration: the finalised storage items by category, in a language the banner speaks',
      params: WidgetParams,
      querystring: DeclarationQuery,
      response: { 200: DeclarationSchema, ...errors },
    },
  }, async (request: DeclarationRequest, reply) => {
    const { declaration } = await declarationFor(request);
    reply.header('cache-control', CACHE_CONTROL).header('vary', 'Origin, Accept-Language');
    return { data: declaration };
  });

  app.get('/widget/:account_id/declaration', {
    config: { auth: 'public', throttle: 'widget' },
    preParsing: admitted,
    schema: {
      operationId: 'widgetDeclarationPage', tags,
      summary: 'The cookie declaration as a page of its own (HTML), for sites that link to it',
      params: WidgetParams,
      querystring: DeclarationQuery,
      response: {
        200: { description: 'The page (text/html)', content: { 'text/html': { schema: { type: 'string' } } } },
        ...errors,
      },
    },
  }, async (request: DeclarationRequest, reply) => {
    const { declaration, account } = await declarationFor(request);
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', DECLARATION_PAGE_CSP)
      .header('cache-control', CACHE_CONTROL)
      .header('vary', 'Origin, Accept-Language')
      .header('referrer-policy', 'no-referrer')
      .send(declarationPage(declaration, account.name));
  });
}
