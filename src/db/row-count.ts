import { sql, type SelectQueryBuilder } from 'kysely';

/** How many rows the query finds: `select count(*)` with its filters. */
export async function countRows<DB, TB extends keyof DB>(query: SelectQueryBuilder<DB, TB, object>): Promise<number> {
  const row = (await query.select(sql<string>`count(*)`.as('count')).executeTakeFirstOrThrow()) as { count: string };
  return Number(row.count);
}

/** Whether the query finds any row: it reads one at the most. */
export async function hasRow<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): Promise<boolean> {
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}
