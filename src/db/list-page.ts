import type { SelectQueryBuilder } from 'kysely';
import { countRows } from './row-count.ts';

/** Which rows of a list a request asks for. */
export interface Window {
  limit: number;
  offset: number;
}

/**
 * One page of a filtered query and how many rows match the filters, read side by side: `scoped`
 * holds the filters, `page` turns it into the rows to show (columns, order).
 */
export async function listPage<DB, TB extends keyof DB, O>(
  scoped: SelectQueryBuilder<DB, TB, object>,
  page: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  window: Window,
): Promise<{ rows: O[]; count: number }> {
  const [rows, count] = await Promise.all([page(scoped).limit(window.limit).offset(window.offset).execute(), countRows(scoped)]);
  return { rows, count };
}
