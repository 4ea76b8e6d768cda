/** What every answer must be, whatever was asked. */
import type { Operation } from './openapi.ts';

/** Statuses any route may answer besides those it declares. */
export const ALWAYS_ALLOWED = new Set([401, 404, 413, 415, 429]);

/** Stack traces, SQL, file paths and internal error names: none may reach a client. */
export const INTERNALS = /at .*\.ts:|node_modules|SELECT |INSERT |syntax error|TypeError|ReferenceError|RangeError|constraint|\/work\/|\.ts:\d|FST_ERR|ECONN|Kysely|PGlite|postgres/i;

/** Never in any body, even one that echoes what the client sent (no input of the fuzzer contains these). */
export const TRACES = /at [^"\n]*\.[jt]s:\d|node_modules|TypeError|ReferenceError|RangeError|FST_ERR/;

export interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

const isText = (value: unknown) => typeof value === 'string' && value.length > 0;
const keysAre = (value: unknown, keys: string[]) =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).sort().join() === [...keys].sort().join();

function arrayForm(body: unknown, status: number): boolean {
  if (!keysAre(body, ['errors'])) return false;
  const errors = (body as { errors: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 &&
    errors.every((e) => keysAre(e, ['code', 'message']) && e.code === status && isText(e.message));
}

function validationForm(body: unknown): boolean {
  if (!keysAre(body, ['errors'])) return false;
  const errors = (body as { errors: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every((e) => keysAre(e, ['error']) && isText(e.error));
}

function singleForm(body: unknown): boolean {
  if (!keysAre(body, ['error'])) return false;
  const error = (body as { error: unknown }).error as { code?: unknown; message?: unknown };
  return keysAre(error, ['code', 'message']) && error.code === 400 && isText(error.message);
}

/** The contract's error forms: which one a status takes, and where the single-object 400 is allowed. */
export function errorFormProblem(op: Operation | undefined, status: number, body: unknown): string | undefined {
  if (status === 422) return validationForm(body) ? undefined : 'a 422 not in the {"errors":[{"error":S}]} form';
  if (status === 400 && op?.singleForm400 && singleForm(body)) return undefined;
  return arrayForm(body, status) ? undefined : `a ${status} not in the {"errors":[{"code":${status},"message":S}]} form`;
}

export interface CheckContext {
  op: Operation | undefined;
  /** Text that must never appear in this answer (the other tenant's marker). */
  forbidden: string[];
}

/** Everything wrong with one answer; empty when it is fine. */
export function problemsOf(answer: Answer, ctx: CheckContext): string[] {
  const problems: string[] = [];
  const { status, body } = answer;
  if (status >= 500) problems.push(`status ${status}`);
  if (ctx.op && !ctx.op.statuses.has(status) && !ALWAYS_ALLOWED.has(status)) {
    problems.push(`status ${status} not declared by ${ctx.op.operationId}`);
  }
  // A status declared with a body of another type (the banner script's 404 comment) may take it;
  // the framework's own refusals (a path it cannot decode) still come in the contract's JSON form.
  const textType = ctx.op?.textErrors.get(status);
  const declaredText = !!textType && String(answer.headers['content-type'] ?? '').startsWith(textType);
  if (status >= 400 && !declaredText) {
    const type = String(answer.headers['content-type'] ?? '');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    if (!type.startsWith('application/json')) problems.push(`error answered as ${type || 'no content type'}`);
    const form = parsed === undefined ? 'an error body that is not JSON' : errorFormProblem(ctx.op, status, parsed);
    if (form) problems.push(form);
    const internal = INTERNALS.exec(body);
    if (internal) problems.push(`internals in an error body: ${JSON.stringify(internal[0])}`);
  }
  const trace = status < 400 ? TRACES.exec(body) : null;
  if (trace) problems.push(`a stack trace or internal error name in a ${status} body: ${JSON.stringify(trace[0])}`);
  for (const text of ctx.forbidden) {
    if (body.includes(text)) problems.push(`another tenant's ${JSON.stringify(text)} in the body`);
  }
  return problems;
}
