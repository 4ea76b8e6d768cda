import type { FastifyInstance, RouteOptions } from 'fastify';
import type { TSchema } from 'typebox';
import { ErrorList, SingleError, ValidationErrorList } from './schemas.ts';

/** The token an API route needs, as the OpenAPI document names it (app.ts declares the scheme). */
const BEARER = [{ bearer: [] }];

/**
 * The error answers an API route can give because of what it is, not what it does:
 * - every one: 400 (a bad query, a body that is not JSON — a DELETE may carry one), 401, 429, 500, 503;
 *   400 in the single-object form where the route's `config.errorForm` says so;
 * - a write for account admins (`admin: true`): 403;
 * - one with path parameters: 404 (a record that is not the caller's, or not there);
 * - one with a body: 413 (too large), 415 (not JSON), 422 (its form; in the single form, a 400).
 * A route declares only its own beside its success: a 422 from a check of its own, a 403 of another
 * rule, a 404 with no path parameter.
 */
function errorsOf(route: RouteOptions): Record<number, TSchema> {
  const { admin, errorForm } = route.config ?? {};
  const single = errorForm === 'single';
  const errors: Record<number, TSchema> = { 400: single ? SingleError : ErrorList, 401: ErrorList, 429: ErrorList, 500: ErrorList, 503: ErrorList };
  if (admin) errors[403] = ErrorList;
  if (route.schema?.params) errors[404] = ErrorList;
  if (route.schema?.body) {
    errors[413] = ErrorList;
    errors[415] = ErrorList;
    if (!single) errors[422] = ValidationErrorList;
  }
  return errors;
}

/**
 * What every route of the API declares alike, added to each as it is registered, from its access
 * rule (`config.auth`, `admin`) and its schema: the bearer security of the routes that need a token
 * (all but `public` and `none`) and the error responses of `errorsOf`. Error bodies are written by
 * error-handler.ts, which bypasses these schemas: they document the answers and change none.
 */
export function declareRouteContract(app: FastifyInstance, prefix: string): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema;
    if (!route.url.startsWith(`${prefix}/`) || !schema?.response || schema.hide) return;
    const auth = route.config?.auth;
    const needsToken = auth !== 'public' && auth !== 'none';
    route.schema = {
      ...schema,
      ...(needsToken && { security: BEARER }),
      response: { ...errorsOf(route), ...(schema.response as Record<number, TSchema>) },
    };
  });
}
