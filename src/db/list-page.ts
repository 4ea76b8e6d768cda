import { sql, type SelectQueryBuilder } from 'kysely';

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
  const [rows, total] = await Promise.all([
    page(scoped).limit(window.limit).offset(window.offset).execute(),
    scoped.select(sql<string>`count(*)`.as('count')).executeTakeFirstOrThrow() as Promise<{ count: string }>,
  ]);
  return { rows, count: Number(total.count) };
}
