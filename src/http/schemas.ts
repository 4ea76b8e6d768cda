import { Type, type TSchema } from 'typebox';

export const ErrorList = Type.Object(
  { errors: Type.Array(Type.Object({ code: Type.Integer(), message: Type.String() })) },
  { description: 'Authentication, authorization, pagination, not-found and other errors' },
);

export const ValidationErrorList = Type.Object(
  { errors: Type.Array(Type.Object({ error: Type.String() })) },
  { description: 'Validation failed: one human-readable sentence per problem' },
);

export const SingleError = Type.Object(
  { error: Type.Object({ code: Type.Integer(), message: Type.String() }) },
  { description: 'Invalid request' },
);

export const MessageSchema = Type.Object({ message: Type.String() });

export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const Timestamp = Type.String({ format: 'date-time' });

/** Bounded strings: every text field states its maximum in the OpenAPI document. */
export const Text = (maxLength = 255, extra: Record<string, unknown> = {}) => Type.String({ maxLength, ...extra });
export const Name = (maxLength = 255) => Type.String({ minLength: 1, maxLength });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * The error statuses every authenticated route can answer, plus the ones a route names. Every route
 * can answer 400: a body that is not JSON (a DELETE may carry one too), or bad query parameters.
 */
export function withErrors(
  success: Record<number, TSchema>,
  extra: { 400?: 'single' | 'array'; 403?: true; 404?: true; 422?: true; 413?: true; 415?: true } = {},
): Record<number, TSchema> {
  const responses: Record<number, TSchema> = { ...success, 400: ErrorList, 401: ErrorList, 429: ErrorList, 500: ErrorList, 503: ErrorList };
  if (extra[400]) responses[400] = extra[400] === 'single' ? SingleError : ErrorList;
  if (extra[403]) responses[403] = ErrorList;
  if (extra[404]) responses[404] = ErrorList;
  if (extra[422]) responses[422] = ValidationErrorList;
  if (extra[413]) responses[413] = ErrorList;
  if (extra[415]) responses[415] = ErrorList;
  return responses;
}

/** A string limited to the given values: `{"type": "string", "enum": [...]}` in the OpenAPI document. */
export const StringEnum = <const T extends readonly string[]>(values: T, extra: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>(Type.String({ enum: [...values], ...extra }));
