import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import type { StorageType } from '../../db/schema.ts';

/**
 * Wildcard storage items: a name containing `*` (`_ga_*`) stands for every concrete name it
 * matches, `*` matching any run of characters (none included), case-sensitively. A concrete item
 * carries the id of the wildcard of its account and storage type that matches it; when several do,
 * the most specific one (most characters besides `*`), then the oldest.
 */
export const isWildcardName = (name: string): boolean => name.includes('*');

/** The LIKE pattern of a wildcard name: LIKE's own `%`, `_` and `\` taken literally, `*` as `%`. */
export function likePattern(name: string): string {
  return name.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

/** The same as `likePattern`, in SQL, for a column of wildcard names. */
function likePatternOf(column: RawBuilder<unknown>) {
  return sql`replace(replace(replace(replace(${column}, '\\', '\\\\'), '%', '\\%'), '_', '\\_'), '*', '%')`;
}

/** The id of the best wildcard for a concrete name, as a scalar subquery (null when none). */
function bestWildcard(accountId: string, storageType: RawBuilder<unknown>, name: RawBuilder<unknown>, exceptId?: string) {
  return sql<string | null>`(
    select w.id from storage_items w
    where w.account_id = ${accountId} and w.is_wildcard_cookie and w.storage_type = ${storageType}
      and ${name} like ${likePatternOf(sql.ref('w.name'))}
      ${exceptId === undefined ? sql`` : sql`and w.id <> ${exceptId}`}
    order by length(replace(w.name, '*', '')) desc, w.id
    limit 1)`;
}

/**
 * Serialises the storage-item writes of one account until the transaction ends, so that a wildcard
 * and a concrete item written at the same time cannot miss each other.
 */
export async function lockAccountItems(trx: Executor, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`storage_items:${accountId}`}))`.execute(trx);
}

/** The wildcard a concrete item named so would link to, never the item itself. */
export async function wildcardFor(db: Executor, accountId: string, storageType: StorageType, name: string, itemId: string) {
  const best = bestWildcard(accountId, sql.val(storageType), sql.val(name), itemId);
  const { rows } = await sql<{ id: string | null }>`select ${best} as id`.execute(db);
  return rows[0]?.id ?? null;
}

export interface Affected {
  storageTypes: StorageType[];
  /** Wildcard names whose matches must be looked at again (old and new names of a changed wildcard). */
  patterns: string[];
  /** A wildcard whose linked items must be looked at again. */
  wildcardId?: string;
}

/**
 * Recomputes the link of every concrete item that a wildcard change may concern: the items that
 * matched the old or match the new pattern, and the items linked to the wildcard. Only the link
 * moves; it is derived data, so `updated_at` stays.
 */
export async function relinkConcreteItems(db: Executor, accountId: string, affected: Affected): Promise<void> {
  const near = [
    ...affected.patterns.map((name) => sql`c.name like ${likePattern(name)}`),
    ...(affected.wildcardId ? [sql`c.wildcard_cookie_id = ${affected.wildcardId}`] : []),
  ];
  if (near.length === 0 || affected.storageTypes.length === 0) return;
  const best = bestWildcard(accountId, sql.ref('c.storage_type'), sql.ref('c.name'));
  await sql`
    update storage_items s set wildcard_cookie_id = candidates.target
    from (
      select c.id, ${best} as target from storage_items c
      where c.account_id = ${accountId} and not c.is_wildcard_cookie
        and c.storage_type in (${sql.join(affected.storageTypes)})
        and (${sql.join(near, sql` or `)})
    ) candidates
    where s.id = candidates.id and s.wildcard_cookie_id is distinct from candidates.target`.execute(db);
}
