import { Type, type TObject, type TOptional, type TProperties, type TSchema } from 'typebox';

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

/** A string limited to the given values: `{"type": "string", "enum": [...]}` in the OpenAPI document. */
export const StringEnum = <const T extends readonly string[]>(values: T, extra: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>(Type.String({ enum: [...values], ...extra }));

/** A create body's object: `name` required, every other field optional (an update body makes all of them optional). */
export function nameRequired<F extends TProperties & { name: TSchema }>(
  fields: F,
): TObject<{ name: F['name'] } & { [K in Exclude<keyof F, 'name'>]: TOptional<F[K]> }> {
  const { name, ...others } = fields;
  return Type.Object({ name, ...Type.Partial(Type.Object(others)).properties }) as never;
}
