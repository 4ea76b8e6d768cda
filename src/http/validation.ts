import type { FastifySchemaValidationError } from 'fastify';
import { ValidationError } from './app-errors.ts';

interface SchemaError extends FastifySchemaValidationError {
  parentSchema?: { minimum?: number; maximum?: number; minLength?: number; maxLength?: number };
}

/** `allowed_domains` → `Allowed domains`, the Rails way of naming a field in a sentence. */
export function humanize(field: string): string {
  const words = field.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function lastSegment(path: string): string {
  const parts = path.split('/').filter((part) => part !== '' && !/^\d+$/.test(part));
  return parts.at(-1) ?? '';
}

/**
 * The field an error is about, named by the schema (its last `properties/<name>`), not by the data:
 * the client's own keys (of a map such as `accepted_services` or `translations`) are never repeated
 * in a message. The data's path is the fallback for a schema that names none.
 */
function fieldOf(error: SchemaError): string {
  const named = [...(error.schemaPath ?? '').matchAll(/\/properties\/([^/]+)/g)].at(-1)?.[1];
  return named ?? lastSegment(error.instancePath);
}

/** One 422 sentence for a body field that failed its schema. */
export function bodyMessage(error: SchemaError): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    return `${humanize(String(params.missingProperty))} can't be blank`;
  }
  const field = fieldOf(error);
  if (field === '') return 'Body must be a JSON object';
  const name = humanize(field);
  // A key of a map the client named (a service in `accepted_services`): said as a key, never repeated.
  if (error.schemaPath?.includes('/propertyNames/')) {
    if (error.keyword === 'maxLength') return `${name} has a key that is too long (maximum is ${params.limit} characters)`;
    if (error.keyword === 'minLength') return `${name} has a blank key`;
    return `${name} is invalid`;
  }
  switch (error.keyword) {
    case 'minLength':
      return params.limit === 1
        ? `${name} can't be blank`
        : `${name} is too short (minimum is ${params.limit} characters)`;
    case 'maxLength':
      return `${name} is too long (maximum is ${params.limit} characters)`;
    case 'maxItems':
      return `${name} is too long (maximum is ${params.limit} items)`;
    case 'minimum':
      return `${name} must be greater than or equal to ${params.limit}`;
    case 'maximum':
      return `${name} must be less than or equal to ${params.limit}`;
    case 'enum':
    case 'const':
    case 'anyOf':
      return `${name} is not included in the list`;
    default:
      return `${name} is invalid`;
  }
}

/**
 * The 422 sentences for a body: one per field. A field that may be null fails every branch of its
 * union; only the branch that is not `null` speaks for it.
 */
export function bodyMessages(errors: SchemaError[]): string[] {
  const unionPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const telling = errors.filter((e) => {
    if (!unionPaths.has(e.instancePath)) return true;
    const nullBranch = e.keyword === 'type' && (e.params as { type?: string }).type === 'null';
    return e.keyword !== 'anyOf' && !nullBranch;
  });
  const chosen = new Map<string, string>();
  for (const error of telling.length > 0 ? telling : errors) {
    const key = error.keyword === 'required' ? `${error.instancePath}/${String((error.params as Record<string, unknown>).missingProperty)}` : error.instancePath;
    if (!chosen.has(key)) chosen.set(key, bodyMessage(error));
  }
  // Two items of one list that fail alike say so once.
  return [...new Set(chosen.values())];
}

/** One 400 sentence for a query parameter, naming it: `limit must be between 1 and 100`. */
export function queryMessage(error: SchemaError): string {
  const params = error.params as Record<string, unknown>;
  const name = fieldOf(error) || String(params.missingProperty ?? 'query');
  const schema = error.parentSchema ?? {};
  if (error.keyword === 'required') return `${name} is required`;
  if (error.keyword === 'enum' || error.keyword === 'anyOf' || error.keyword === 'const') {
    return `${name} is not one of the allowed values`;
  }
  if (error.keyword === 'maximum' && schema.maximum !== undefined && schema.maximum >= 1_000_000) {
    return `${name} is too large (maximum is ${schema.maximum})`;
  }
  // Bounds that only guard against absurd values (page, offset) are not worth stating.
  if (schema.minimum !== undefined && schema.maximum !== undefined && schema.maximum < 1_000_000) {
    return `${name} must be between ${schema.minimum} and ${schema.maximum}`;
  }
  if (schema.minimum !== undefined) {
    return `${name} must be greater than or equal to ${schema.minimum}`;
  }
  if (error.keyword === 'maxLength') return `${name} is too long (maximum is ${params.limit} characters)`;
  if (error.keyword === 'format') return `${name} must be a valid ${params.format}`;
  return `${name} is invalid`;
}

/** Collects 422 sentences, then throws them together. */
export class Problems {
  private readonly messages: string[] = [];

  add(field: string, problem: string): this {
    this.messages.push(`${humanize(field)} ${problem}`);
    return this;
  }

  /** Trims a required text; blank (or whitespace) is `can't be blank`. */
  required(field: string, value: string | undefined): string {
    const trimmed = value?.trim() ?? '';
    if (trimmed === '') this.add(field, "can't be blank");
    return trimmed;
  }

  throwIfAny(): void {
    if (this.messages.length > 0) throw new ValidationError(this.messages);
  }
}
