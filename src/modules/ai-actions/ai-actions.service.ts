import type { Kysely } from 'kysely';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import type { AiActionRow, Database } from '../../db/schema.ts';
import { toJson, type Executor } from '../../db/kysely.ts';
import { found, ValidationError } from '../../http/app-errors.ts';
import { isStandardCategory } from '../../ai/knowledge/registry.ts';
import { bumpRevision } from '../banner/banner.service.ts';
import { categoryForStandard } from '../categories/categories.service.ts';
import { findStorageItem, writeItemChanges } from '../storage-items/storage-items.service.ts';
import { ACCEPTED } from './ai-action-reason.ts';
import { categoryCreated, findAiAction, markApplied, markStatus } from './ai-actions.repository.ts';
import { recordAiAction } from './record-ai-action.ts';

/** The fields the AI may change, and so the only ones a revert may write back. */
const REVERTIBLE = {
  Category: ['name', 'slug', 'description', 'required', 'default_language'],
  StorageItem: ['category_id', 'description', 'company_name', 'duration', 'status', 'approved_by_type', 'translations'],
} as const;

const TABLE = { Category: 'categories', StorageItem: 'storage_items' } as const;

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

async function restore(db: Executor, action: AiActionRow): Promise<void> {
  const table = TABLE[action.actionable_type];
  const current = await db
    .selectFrom(table)
    .selectAll()
    .where('account_id', '=', action.account_id)
    .where('id', '=', action.actionable_id)
    .executeTakeFirst() as Record<string, unknown> | undefined;
  if (!current) throw new ValidationError('The record this action changed no longer exists');

  if (Object.keys(action.previous_params).length === 0) {
    // The action created the record: undoing it removes the record, unless something now depends on it.
    if (table === 'categories') {
      const used = await db.selectFrom('storage_items').select('id').where('category_id', '=', action.actionable_id).limit(1).executeTakeFirst();
      if (used) throw new ValidationError('Category still holds storage items; move them before reverting its creation');
    }
    await db.deleteFrom(table).where('id', '=', action.actionable_id).execute();
    // A published category leaves the banner: visitors are asked again.
    if (table === 'categories' && current.published) await bumpRevision(db, action.account_id);
    return;
  }

  // Only what still holds the AI's value goes back: a person's later edit stays.
  const changes: Record<string, unknown> = {};
  for (const field of REVERTIBLE[action.actionable_type] as readonly string[]) {
    if (!(field in action.previous_params)) continue;
    if (!same(current[field], action.suggested_params[field])) continue;
    const previous = action.previous_params[field] ?? null;
    // A jsonb column (the texts in other languages) is written as JSON text, as everywhere.
    changes[field] = typeof previous === 'object' && previous !== null ? toJson(previous) : previous;
  }
  if (Object.keys(changes).length === 0) return;
  await db
    .updateTable(table)
    .set({ ...changes, updated_at: new Date() } as never)
    .where('id', '=', action.actionable_id)
    .execute();
}

/** Reverts an applied action in one transaction: the record restored, the action marked reverted. */
export async function revertAction(db: Kysely<Database>, accountId: string, id: string): Promise<AiActionRow> {
  return db.transaction().execute(async (trx) => {
    const action = found(await findAiAction(trx, accountId, id, true));
    if (action.status === 'reverted') throw new ValidationError('Action has already been reverted');
    if (action.status === 'suggested') throw new ValidationError('Action was only suggested and never applied');
    if (action.status === 'rejected') throw new ValidationError('Action was rejected and never applied');
    await restore(trx, action);
    const reverted = await markStatus(trx, action.id, 'reverted');
    await recordAudit(trx, { accountId, resourceType: 'ai_action', resourceId: id, action: 'revert', before: action, after: reverted });
    return reverted;
  });
}

/** Turns down a suggestion: nothing was applied, so nothing changes but the action's status. */
export async function rejectAction(db: Kysely<Database>, accountId: string, id: string): Promise<AiActionRow> {
  return db.transaction().execute(async (trx) => {
    const action = found(await findAiAction(trx, accountId, id, true));
    if (action.status === 'rejected') throw new ValidationError('Action has already been rejected');
    if (action.status !== 'suggested') throw new ValidationError('Action was applied, not suggested; revert it instead');
    const rejected = await markStatus(trx, action.id, 'rejected');
    await recordAudit(trx, { accountId, resourceType: 'ai_action', resourceId: id, action: 'reject', before: action, after: rejected });
    return rejected;
  });
}

/**
 * Accepts a suggested category: the item moves to the account's category of that meaning (one is
 * created, published, when none matches: a person decided) and from `draft` to `in_review`. The
 * action becomes `applied` with what it changed, so that it reverts like the AI's own changes.
 * The caller forgets the cached categories and banner.
 */
export async function acceptAction(db: Kysely<Database>, accountId: string, id: string): Promise<AiActionRow> {
  return db.transaction().execute(async (trx) => {
    const action = found(await findAiAction(trx, accountId, id, true));
    if (action.status !== 'suggested') throw new ValidationError(`Action was ${action.status}, not suggested`);
    const standard = action.suggested_params.category;
    if (action.actionable_type !== 'StorageItem' || !isStandardCategory(standard)) {
      throw new ValidationError('Only a suggested category can be accepted');
    }
    const item = await findStorageItem(trx, accountId, action.actionable_id, true);
    if (!item) throw new ValidationError('The record this action changed no longer exists');
    if (item.status === 'processing') throw new ValidationError('The AI is working on this item; retry in a moment');
    // A category a person chose since the suggestion stays: the suggestion is out of date.
    if (item.category_id !== null) throw new ValidationError('The item has a category already; reject the suggestion or change the item');

    const { category, created } = await categoryForStandard(trx, accountId, standard, true);
    if (created) await recordAiAction(trx, categoryCreated(accountId, category, action.confidence, `standard categories, for "${item.name}"; ${ACCEPTED}`));
    const fromDraft = item.status === 'draft';
    const applied = { category_id: category.id, ...(fromDraft ? { status: 'in_review' as const } : {}) };
    const previous = { category_id: item.category_id, ...(fromDraft ? { status: 'draft' } : {}) };
    await writeItemChanges(trx, item.id, { ...applied, updated_at: new Date() });
    const accepted = await markApplied(trx, action.id, {
      suggested_params: { ...action.suggested_params, ...applied }, previous_params: previous, source: `${action.source}; ${ACCEPTED}`,
    });
    await recordAudit(trx, { accountId, resourceType: 'ai_action', resourceId: id, action: 'accept', before: action, after: accepted });
    return accepted;
  });
}

/** The AI's background worker, which the scans hand new items to. */
export type { AiWorker, WorkerLog } from './ai-worker.ts';
