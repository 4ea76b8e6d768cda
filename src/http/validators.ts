import { Ajv, type Options as AjvOptions } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/**
 * What the validators enforce beyond the schemas as documented:
 * - unknown body fields are removed (the contract ignores them), so that no handler can pass one
 *   on to an INSERT or UPDATE (`account_id`, `id`…);
 * - every text is storable: PostgreSQL refuses a NUL character and would silently replace a lone
 *   surrogate, so both are `is invalid` before any query runs; so is a `date-time` it cannot hold.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function addStorableKeyword(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'storable',
    type: 'string',
    schemaType: 'boolean',
    errors: false,
    validate: (_: boolean, text: string) => !text.includes('\u0000') && !LONE_SURROGATE.test(text),
  });
}

/** A copy of a route schema for its validator: objects closed (for bodies), texts and keys storable. */
function forValidation(schema: unknown, closeObjects: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((item) => forValidation(item, closeObjects));
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // The names under `properties` are field names, not keywords.
    copy[key] = key === 'properties'
      ? Object.fromEntries(Object.entries(value as object).map(([name, field]) => [name, forValidation(field, closeObjects)]))
      : forValidation(value, closeObjects);
  }
  if (copy.type === 'string') copy.storable = true;
  if (copy.type === 'object') {
    const named = copy.properties !== undefined || copy.patternProperties !== undefined;
    if (closeObjects && named && copy.additionalProperties === undefined) copy.additionalProperties = false;
    // Keys of a map (a TypeBox Record) are texts too, within whatever bounds the schema gives them.
    if (copy.patternProperties || typeof copy.additionalProperties === 'object') copy.propertyNames = { ...(copy.propertyNames as object | undefined), type: 'string', storable: true };
  }
  return copy;
}

/** The instants PostgreSQL's `timestamptz` and a JavaScript `Date` both hold: years 1 to 9999, in UTC. */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');
const rfc3339DateTime = addFormats.default.get('date-time') as { validate: (text: string) => boolean };

/**
 * RFC 3339 allows what no query can use: a leap second (`23:59:60`, which `Date` cannot read) and
 * years PostgreSQL refuses (`0000`, or `9999-12-31T23:59:59-12:00`, in the year 10000 in UTC).
 */
function isStorableDateTime(text: string): boolean {
  if (!rfc3339DateTime.validate(text)) return false;
  const time = Date.parse(text);
  return time >= EARLIEST && time <= LATEST;
}

function ajv(options: AjvOptions) {
  const instance = new Ajv({ strict: false, ...options });
  addFormats.default(instance);
  instance.addFormat('date-time', { type: 'string', validate: isStorableDateTime });
  return instance;
}

/**
 * Bodies are strict (a wrong type is 422) and lose their unknown fields; query strings and paths are
 * text, coerced to their types. See above for what is checked beyond the schemas.
 */
export function registerValidators(app: FastifyInstance) {
  const body = ajv({ coerceTypes: false, allErrors: true, useDefaults: true, removeAdditional: true });
  const text = ajv({ coerceTypes: 'array', allErrors: false, useDefaults: false, verbose: true });
  addStorableKeyword(body);
  addStorableKeyword(text);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? body.compile(forValidation(schema, true) as object) : text.compile(forValidation(schema, false) as object),
  );
}
