import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { BadRequestError } from './app-errors.ts';

/** No body of this API nests deeper than five levels; far deeper is refused before it is parsed. */
export const MAX_JSON_DEPTH = 32;

/** Whether JSON text nests objects and arrays deeper than `limit`. One pass, strings skipped, no recursion. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Fastify's own JSON parser (keys `__proto__` and `constructor.prototype` refused), after the depth check. */
export function jsonBodyParser(app: FastifyInstance): FastifyBodyParser<string> {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
      done(new BadRequestError(`Request body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`), undefined);
      return;
    }
    parse(request, body, done);
  };
}

export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app));
}
