import type { Executor } from '../../db/kysely.ts';
import type { ConsentRow, UserPreferences } from '../../db/schema.ts';
import type { Sort, Window } from '../../http/pagination.ts';
import type { ConsentFilters } from './consents.schema.ts';

export interface NewConsent {
  id: string;
  account_id: string;
  session_id: string;
  user_id: string | null;
  user_preferences: UserPreferences;
  url: string | null;
  user_agent: string | null;
  ip_address: string | null;
  gpc: boolean;
  created_at: Date;
}

export function filtered(db: Executor, accountId: string, filters: ConsentFilters) {
  let query = db.selectFrom('consents').where('account_id', '=', accountId);
  if (filters.session_id !== undefined) query = query.where('session_id', '=', filters.session_id);
  if (filters.user_id !== undefined) query = query.where('user_id', '=', filters.user_id);
  if (filters.created_after !== undefined) query = query.where('created_at', '>', new Date(filters.created_after));
  if (filters.created_before !== undefined) query = query.where('created_at', '<', new Date(filters.created_before));
  return query;
}

export async function listConsents(
  db: Executor,
  accountId: string,
  filters: ConsentFilters,
  sort: Sort<'created_at'>,
  window: Window,
): Promise<{ rows: ConsentRow[]; count: number }> {
  const scoped = filtered(db, accountId, filters);
  // The offset is walked in the index alone (index-only scan); only the page's rows are read from the table.
  const page = scoped
    .select(['id', 'created_at'])
    .orderBy(sort.sort, sort.order)
    .orderBy('id', sort.order)
    .limit(window.limit)
    .offset(window.offset)
    .as('page');
  const [rows, count] = await Promise.all([
    db
      .selectFrom(page)
      .innerJoin('consents', 'consents.id', 'page.id')
      .selectAll('consents')
      .orderBy('page.created_at', sort.order)
      .orderBy('page.id', sort.order)
      .execute(),
    countConsents(db, accountId, filters),
  ]);
  return { rows, count };
}

/** Unfiltered, the count is the account's counter, kept exact by the writer; filtered, an index scan. */
async function countConsents(db: Executor, accountId: string, filters: ConsentFilters): Promise<number> {
  const { session_id, user_id, created_after, created_before } = filters;
  const unfiltered = [session_id, user_id, created_after, created_before].every((value) => value === undefined);
  if (unfiltered) {
    const row = await db.selectFrom('account_consent_counts').select('consents').where('account_id', '=', accountId).executeTakeFirst();
    return Number(row?.consents ?? 0);
  }
  const row = await filtered(db, accountId, filters).select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findConsent(db: Executor, accountId: string, id: string): Promise<ConsentRow | undefined> {
  return db.selectFrom('consents').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}
