import type { Ajv } from 'ajv';

/**
 * What the validators enforce beyond the schemas as documented:
 * - unknown body fields are removed (the contract ignores them), so that no handler can pass one
 *   on to an INSERT or UPDATE (`account_id`, `id`…);
 * - every text is storable: PostgreSQL refuses a NUL character and would silently replace a lone
 *   surrogate, so both are `is invalid` before any query runs.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function addStorableKeyword(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'storable',
    type: 'string',
    schemaType: 'boolean',
    errors: false,
    validate: (_: boolean, text: string) => !text.includes('\u0000') && !LONE_SURROGATE.test(text),
  });
}

/** A copy of a route schema for its validator: objects closed (for bodies), texts and keys storable. */
export function forValidation(schema: unknown, closeObjects: boolean): unknown {
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
    // Keys of a map (a TypeBox Record) are texts too.
    if (copy.patternProperties || typeof copy.additionalProperties === 'object') copy.propertyNames = { type: 'string', storable: true };
  }
  return copy;
}
