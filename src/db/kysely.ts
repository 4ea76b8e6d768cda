import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** What every repository function takes first: the database or a transaction the caller owns. */
export type Executor = Kysely<Database> | Transaction<Database>;

export const toJson = (value: unknown): string => JSON.stringify(value);

/** 23505: a unique index refused the row (a race the caller's own check did not see). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '23505';
}

/** 23503: a foreign key refused the change (a row it needs went, or a row still needs it). */
export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '23503';
}
