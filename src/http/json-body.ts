import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { AppError, BadRequestError } from './app-errors.ts';

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

/** Whether text that the safe parser refused is JSON all the same: then a forbidden key was the reason. */
function isPlainJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A route takes no body, or declares one that may be left out (its schema allows `null`). */
const bodyOptional = (schema: unknown): boolean =>
  schema === undefined || ((schema as { anyOf?: { type?: unknown }[] }).anyOf?.some((option) => option.type === 'null') ?? false);

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * Fastify's own JSON parser (keys `__proto__` and `constructor.prototype` refused, and said so),
 * after the charset and depth checks. JSON is UTF-8: a body declared in another charset is 415.
 */
export function jsonBodyParser(app: FastifyInstance): FastifyBodyParser<string> {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(new AppError(415, 'Content-Type charset must be utf-8'), undefined);
      return;
    }
    // Clients that send the JSON Content-Type on every request send it on a DELETE with no body too:
    // a route that takes no body, or whose body may be left out (`null` allowed), has nothing to parse.
    // Where one is needed, empty is malformed (400).
    if (body === '' && bodyOptional(request.routeOptions.schema?.body)) {
      done(null, undefined);
      return;
    }
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
      done(new BadRequestError(`Request body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`), undefined);
      return;
    }
    parse(request, body, (error, value) => {
      if (error && isPlainJson(body)) {
        done(new BadRequestError('Request body keys __proto__ and constructor.prototype are not allowed'), undefined);
        return;
      }
      done(error, value);
    });
  };
}

export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app));
}
