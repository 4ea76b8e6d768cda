import { uuidv7 } from 'uuidv7';

export const newId = (): string => uuidv7();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids from the outside that are not UUIDs can match no record: callers answer 404 without a query. */
export const isId = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
