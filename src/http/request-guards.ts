import type { FastifyInstance } from 'fastify';
import { BadRequestError } from './app-errors.ts';

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/** Ids are stored lower-case; one sent in capitals names the same record on every route. */
const lowerIds = (values: Record<string, unknown>) => {
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === 'string' && UUID.test(value) && /[A-F]/.test(value)) values[key] = value.toLowerCase();
  }
};

/** A whole number as people write one in a query: digits, after a minus sign at most. */
const WHOLE_NUMBER = /^-?\d+$/;

/**
 * Before validation: a query parameter given twice is refused by name (no route takes a list in
 * its query string), and ids in the path and the query are lower-cased. An integer parameter must
 * be written in digits: the validator would read `1e1`, `0x10`, `+5` or `2.0` as numbers, so such a
 * value is handed to it as one it cannot read, and it is refused in the parameter's usual words.
 */
export function registerRequestGuards(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (query && typeof query === 'object') {
      const fields = (request.routeOptions.schema?.querystring as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
      for (const [key, value] of Object.entries(query)) {
        if (Array.isArray(value)) {
          done(new BadRequestError(`${key} must be given once`));
          return;
        }
        if (typeof value === 'string' && fields?.[key]?.type === 'integer' && !WHOLE_NUMBER.test(value)) query[key] = 'not a number';
      }
      lowerIds(query);
    }
    const params = request.params as Record<string, unknown> | undefined;
    if (params && typeof params === 'object') lowerIds(params);
    done();
  });
}
