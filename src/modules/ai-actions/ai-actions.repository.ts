import { newId } from '../../db/ids.ts';
import { toJson, type Executor } from '../../db/kysely.ts';
import type { AiActionRow, AiActionsTable, CategoryRow } from '../../db/schema.ts';
import { listPage } from '../../db/list-page.ts';
import { hasRow } from '../../db/row-count.ts';
import type { Sort, Window } from '../../http/pagination.ts';
import type { AiActionFilters } from './ai-actions.schema.ts';

export interface NewAiAction {
  account_id: string;
  action_type: AiActionsTable['action_type'];
  actionable_type: AiActionsTable['actionable_type'];
  actionable_id: string;
  suggested_params: Record<string, unknown>;
  previous_params: Record<string, unknown>;
  confidence: number;
  source: string;
  status?: 'applied' | 'suggested';
}

/** The action that records a category made from the standard ones: undoing it removes the category. */
export function categoryCreated(accountId: string, category: CategoryRow, confidence: number, source: string): NewAiAction {
  const { name, slug, description, required, published } = category;
  return {
    account_id: accountId, action_type: 'auto_categorise', actionable_type: 'Category', actionable_id: category.id,
    suggested_params: { name, slug, description, required, published }, previous_params: {}, confidence, source,
  };
}

export async function insertAiAction(db: Executor, action: NewAiAction): Promise<AiActionRow> {
  return db
    .insertInto('ai_actions')
    .values({
      id: newId(),
      ...action,
      suggested_params: toJson(action.suggested_params),
      previous_params: toJson(action.previous_params),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listAiActions(db: Executor, accountId: string, filters: AiActionFilters, sort: Sort<'created_at'>, window: Window) {
  let scoped = db.selectFrom('ai_actions').where('account_id', '=', accountId);
  if (filters.action_type) scoped = scoped.where('action_type', '=', filters.action_type);
  if (filters.actionable_type) scoped = scoped.where('actionable_type', '=', filters.actionable_type);
  if (filters.actionable_id) scoped = scoped.where('actionable_id', '=', filters.actionable_id);
  if (filters.status) scoped = scoped.where('status', '=', filters.status);
  return listPage(scoped, (q) => q.selectAll().orderBy(sort.sort, sort.order).orderBy('id', sort.order), window);
}

export async function findAiAction(db: Executor, accountId: string, id: string, lock = false): Promise<AiActionRow | undefined> {
  let query = db.selectFrom('ai_actions').selectAll().where('account_id', '=', accountId).where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function markStatus(db: Executor, id: string, status: 'reverted' | 'rejected'): Promise<AiActionRow> {
  return db.updateTable('ai_actions').set({ status }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** A suggestion a person accepted: it is applied, and records what it changed so that it can be reverted. */
export async function markApplied(
  db: Executor,
  id: string,
  params: { suggested_params: Record<string, unknown>; previous_params: Record<string, unknown>; source: string },
): Promise<AiActionRow> {
  return db
    .updateTable('ai_actions')
    .set({ status: 'applied', ...params, suggested_params: toJson(params.suggested_params), previous_params: toJson(params.previous_params) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Whether the item has a category suggestion waiting for a person: the AI does not suggest it twice. */
export async function hasOpenSuggestion(db: Executor, accountId: string, itemId: string): Promise<boolean> {
  return hasRow(db
    .selectFrom('ai_actions')
    .select('id')
    .where('account_id', '=', accountId)
    .where('actionable_id', '=', itemId)
    .where('action_type', '=', 'auto_categorise')
    .where('status', '=', 'suggested'));
}

/** Fields of the item whose AI change a person has reverted or rejected: the AI never puts them back. */
export async function revertedFields(db: Executor, accountId: string, itemId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('ai_actions')
    .select('suggested_params')
    .where('account_id', '=', accountId)
    .where('actionable_id', '=', itemId)
    .where('status', 'in', ['reverted', 'rejected'])
    .execute();
  // A suggested category names a standard category; the field it would fill is category_id.
  return new Set(rows.flatMap((row) => Object.keys(row.suggested_params).map((key) => (key === 'category' ? 'category_id' : key))));
}
