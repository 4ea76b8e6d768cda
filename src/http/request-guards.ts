import type { FastifyInstance } from 'fastify';
import { BadRequestError } from './app-errors.ts';

const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/** Ids are stored lower-case; one sent in capitals names the same record on every route. */
const lowerIds = (values: Record<string, unknown>) => {
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === 'string' && UUID.test(value) && /[A-F]/.test(value)) values[key] = value.toLowerCase();
  }
};

/**
 * Before validation: a query parameter given twice is refused by name (no route takes a list in
 * its query string), and ids in the path and the query are lower-cased.
 */
export function registerRequestGuards(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (query && typeof query === 'object') {
      for (const [key, value] of Object.entries(query)) {
        if (Array.isArray(value)) {
          done(new BadRequestError(`${key} must be given once`));
          return;
        }
      }
      lowerIds(query);
    }
    const params = request.params as Record<string, unknown> | undefined;
    if (params && typeof params === 'object') lowerIds(params);
    done();
  });
}
