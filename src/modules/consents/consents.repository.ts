import { toJson, type Executor } from '../../db/kysely.ts';
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

export async function insertConsent(db: Executor, consent: NewConsent): Promise<void> {
  await db
    .insertInto('consents')
    .values({ ...consent, user_preferences: toJson(consent.user_preferences) })
    .execute();
}

function filtered(db: Executor, accountId: string, filters: ConsentFilters) {
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
  const [rows, total] = await Promise.all([
    scoped
      .selectAll()
      .orderBy(sort.sort, sort.order)
      .orderBy('id', sort.order)
      .limit(window.limit)
      .offset(window.offset)
      .execute(),
    scoped.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

export async function findConsent(db: Executor, accountId: string, id: string): Promise<ConsentRow | undefined> {
  return db.selectFrom('consents').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** The account's categories among the given ids, with whether each is required. */
export async function categoriesOf(db: Executor, accountId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('categories').select(['id', 'name', 'required']).where('account_id', '=', accountId).where('id', 'in', ids).execute();
}
