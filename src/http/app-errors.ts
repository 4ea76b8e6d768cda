/** Errors that domain code throws; `error-handler.ts` renders each in the contract's exact form. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Invalid API Key') {
    super(401, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Record not found') {
    super(404, message);
  }
}

/** The record, or 404 when there is none (another tenant's record included: its existence is not told). */
export function found<T>(record: T | undefined | null | false): T {
  if (!record) throw new NotFoundError();
  return record;
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, 'Too many requests. Please retry later.', { 'retry-after': String(retryAfterSeconds) });
  }
}

export class UnavailableError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(503, message, { 'retry-after': String(retryAfterSeconds) });
  }
}

/** 422: one human sentence per problem, field name first (`Name can't be blank`). */
export class ValidationError extends AppError {
  readonly messages: string[];
  constructor(messages: string | string[]) {
    const list = Array.isArray(messages) ? messages : [messages];
    super(422, list.join(', '));
    this.messages = list;
  }
}

export const INVALID_TOKEN = 'Invalid API Key';
export const EXPIRED_TOKEN = 'Missing, invalid or expired API token';
export const NEEDS_PARTNER = 'API key must belong to a partner';
export const NEEDS_ACCOUNT = 'API key must belong to an account';
export const NEEDS_USER = 'API key must belong to a user';
export const NEEDS_ADMIN = 'User must be an admin of this account';
