import type { Kysely } from 'kysely';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import { newId } from '../../db/ids.ts';
import { isForeignKeyViolation } from '../../db/kysely.ts';
import type { ApprovedByType, Database, StorageItemRow, StorageItemStatus } from '../../db/schema.ts';
import type { Executor } from '../../db/kysely.ts';
import { found, NotFoundError, ValidationError } from '../../http/app-errors.ts';
import type { Principal } from '../../http/auth.ts';
import { Problems } from '../../http/validation.ts';
import { aiWorksOnItems } from '../accounts/accounts.schema.ts';
import { findAiFeatures, markVendorsSetup } from '../accounts/accounts.service.ts';
import { checkCategory, checkTranslations, storedTranslations, trimTexts } from '../categories/categories.service.ts';
import {
  deleteStorageItem,
  deleteStorageItems,
  finaliseItems,
  listUnseenItems,
  findStorageItem,
  insertStorageItem,
  markProcessing,
  markUncategorisedProcessing,
  updateStorageItem,
  type StorageItemChanges,
} from './storage-items.repository.ts';
import type { StorageItemFields } from './storage-items.schema.ts';
import { isWildcardName, lockAccountItems, relinkConcreteItems, wildcardFor } from './wildcards.ts';

export const CATEGORY_MISSING = 'Category must exist';

/** Who writes: recorded as `created_by`, and as `approved_by_type` when the write finalises an item. */
export interface Actor {
  createdBy: 'user' | 'api';
  approver: Extract<ApprovedByType, 'User' | 'API'>;
}

export function actorOf(principal: Principal): Actor {
  return principal.type === 'user' ? { createdBy: 'user', approver: 'User' } : { createdBy: 'api', approver: 'API' };
}

/**
 * Who approved the item once it has `status`: the writer when it reaches `finalised`, whoever
 * approved it before while it stays there, nobody once it leaves.
 */
export function approvalAfter(
  current: Pick<StorageItemRow, 'status' | 'approved_by_type'> | undefined,
  status: StorageItemStatus,
  approver: ApprovedByType,
): ApprovedByType | null {
  if (status !== 'finalised') return null;
  if (current?.status === 'finalised') return current.approved_by_type ?? approver;
  return approver;
}

/**
 * Trims the texts, checks the name and the category, merges the texts in other languages with
 * those of `current`; `processing` was refused by the schema.
 */
async function clean(db: Executor, accountId: string, fields: StorageItemFields, current?: StorageItemRow): Promise<StorageItemChanges> {
  const problems = new Problems();
  const { last_seen_at, translations, ...rest } = fields;
  const out: StorageItemChanges = { ...rest, ...trimTexts(problems, fields, ['name', 'description', 'company_name', 'domain', 'duration', 'path']) };
  if (last_seen_at !== undefined) out.last_seen_at = last_seen_at === null ? null : new Date(last_seen_at);
  await checkCategory(db, problems, accountId, fields.category_id);
  checkTranslations(problems, translations);
  problems.throwIfAny();
  if (translations !== undefined) out.translations = storedTranslations(current?.translations, translations);
  return out;
}

/**
 * One write of the account's items: a transaction holding the account's items lock (wildcard links
 * stay consistent); a category deleted between the check and the write is 422.
 */
function writeItems<T>(db: Kysely<Database>, accountId: string, work: (trx: Executor) => Promise<T>): Promise<T> {
  return db
    .transaction()
    .execute(async (trx) => {
      await lockAccountItems(trx, accountId);
      return work(trx);
    })
    .catch((error: unknown) => {
      if (isForeignKeyViolation(error)) throw new ValidationError(CATEGORY_MISSING);
      throw error;
    });
}

export async function createStorageItem(
  db: Kysely<Database>,
  accountId: string,
  fields: StorageItemFields & { name: string },
  actor: Actor,
): Promise<StorageItemRow> {
  return writeItems(db, accountId, async (trx) => {
    const values = await clean(trx, accountId, fields);
    const id = newId();
    const name = values.name!;
    const storageType = values.storage_type ?? 'cookie';
    const status = values.status ?? 'draft';
    const wildcard = isWildcardName(name);
    const row = await insertStorageItem(trx, {
      ...values,
      id,
      account_id: accountId,
      name,
      storage_type: storageType,
      status,
      approved_by_type: approvalAfter(undefined, status, actor.approver),
      is_wildcard_cookie: wildcard,
      wildcard_cookie_id: wildcard ? null : await wildcardFor(trx, accountId, storageType, name, id),
      created_by: actor.createdBy,
    });
    if (wildcard) await relinkConcreteItems(trx, accountId, { storageTypes: [storageType], patterns: [name] });
    await markVendorsSetup(trx, accountId);
    const taken = await takeForAi(trx, row);
    await recordAudit(trx, { accountId, resourceType: 'storage_item', resourceId: id, action: 'create', after: taken });
    return taken;
  });
}

export async function changeStorageItem(
  db: Kysely<Database>,
  accountId: string,
  id: string,
  fields: StorageItemFields,
  actor: Actor,
): Promise<StorageItemRow> {
  return writeItems(db, accountId, async (trx) => {
    const current = found(await findStorageItem(trx, accountId, id));
    const values = await clean(trx, accountId, fields, current);
    const name = values.name ?? current.name;
    const storageType = values.storage_type ?? current.storage_type;
    const wildcard = isWildcardName(name);
    const row = await updateStorageItem(trx, accountId, id, {
      ...values,
      approved_by_type: approvalAfter(current, values.status ?? current.status, actor.approver),
      is_wildcard_cookie: wildcard,
      wildcard_cookie_id: wildcard ? null : await wildcardFor(trx, accountId, storageType, name, id),
    });
    if (!row) throw new NotFoundError();
    const moved = name !== current.name || storageType !== current.storage_type;
    if (moved && (wildcard || current.is_wildcard_cookie)) {
      await relinkConcreteItems(trx, accountId, {
        storageTypes: [...new Set([current.storage_type, storageType])],
        patterns: [current, row].filter((item) => item.is_wildcard_cookie).map((item) => item.name),
        wildcardId: id,
      });
    }
    // What the AI's knowledge rests on changed: it may work on the item again.
    const changed = moved || row.domain !== current.domain ? await takeForAi(trx, row) : row;
    await recordAudit(trx, { accountId, resourceType: 'storage_item', resourceId: id, action: 'update', before: current, after: changed });
    return changed;
  });
}

export async function removeStorageItem(db: Kysely<Database>, accountId: string, id: string): Promise<void> {
  await writeItems(db, accountId, async (trx) => {
    const current = await findStorageItem(trx, accountId, id);
    if (!current || !(await deleteStorageItem(trx, accountId, id))) throw new NotFoundError();
    await recordAudit(trx, { accountId, resourceType: 'storage_item', resourceId: id, action: 'delete', before: current });
    // Its matches lost their link with it (on delete set null); another wildcard may take them.
    if (current.is_wildcard_cookie) {
      await relinkConcreteItems(trx, accountId, { storageTypes: [current.storage_type], patterns: [current.name] });
    }
  });
}

/**
 * Deletes those of `ids` that no scan has seen since `since` (made before it, not seen since), in
 * one transaction; the matches of a wildcard among them may go to another. Answers what was deleted.
 */
export async function removeUnseenItems(db: Kysely<Database>, accountId: string, since: Date, ids: string[]): Promise<StorageItemRow[]> {
  return writeItems(db, accountId, async (trx) => {
    const unseen = await listUnseenItems(trx, accountId, since, ids);
    const removed = await deleteStorageItems(trx, accountId, unseen.map((item) => item.id));
    for (const item of removed) await recordAudit(trx, { accountId, resourceType: 'storage_item', resourceId: item.id, action: 'delete', before: item });
    const wildcards = removed.filter((item) => item.is_wildcard_cookie);
    if (wildcards.length > 0) {
      await relinkConcreteItems(trx, accountId, { storageTypes: [...new Set(wildcards.map((w) => w.storage_type))], patterns: wildcards.map((w) => w.name) });
    }
    return removed;
  });
}

export const AI_CATEGORISE_OFF = 'AI categorisation is off for this account: turn on auto_categorise first';

/**
 * "Classify now": hands the account's uncategorised drafts (those of `ids` only, when given) to the
 * AI, in one transaction that marks them `processing` (the durable queue: a crash loses none).
 * Items a person has moved on (`in_review`, `finalised`) are theirs and left alone. The caller
 * submits the returned rows to the worker once committed.
 */
export async function takeUncategorisedForAi(db: Kysely<Database>, accountId: string, ids?: string[]): Promise<StorageItemRow[]> {
  return db.transaction().execute(async (trx) => {
    if (!(await findAiFeatures(trx, accountId)).auto_categorise) throw new ValidationError(AI_CATEGORISE_OFF);
    await lockAccountItems(trx, accountId);
    const taken = await markUncategorisedProcessing(trx, accountId, ids && lowerIds(ids));
    for (const item of taken) {
      await recordAudit(trx, { accountId, resourceType: 'storage_item', resourceId: item.id, action: 'classify', after: { status: item.status } });
    }
    return taken;
  });
}

const lowerIds = (ids: string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];

/**
 * Approves several items at once, as a PUT of `finalised` on each would: those with a category
 * that wait for a person are finalised, approved by `actor`; the other ids sent are skipped.
 * The caller forgets the cached banner.
 */
export async function approveStorageItems(
  db: Kysely<Database>,
  accountId: string,
  ids: string[],
  actor: Actor,
): Promise<{ approved: string[]; skipped: string[] }> {
  const wanted = lowerIds(ids);
  const approved = await writeItems(db, accountId, async (trx) => {
    const finalised = await finaliseItems(trx, accountId, wanted, actor.approver);
    for (const id of finalised) {
      await recordAudit(trx, { accountId, resourceType: 'storage_item', resourceId: id, action: 'approve', after: { status: 'finalised', approved_by_type: actor.approver } });
    }
    return finalised;
  });
  const done = new Set(approved);
  return { approved: wanted.filter((id) => done.has(id)), skipped: wanted.filter((id) => !done.has(id)) };
}

/** A draft that lacks a category or a description: what the AI is for. */
export function needsAi(item: Pick<StorageItemRow, 'status' | 'category_id' | 'description'>): boolean {
  return item.status === 'draft' && (item.category_id === null || item.description === '');
}

/**
 * Called inside the transaction that wrote a storage item, when the item is new or its name,
 * domain or storage type changed (what the AI's knowledge rests on; an edit of anything else,
 * clearing a field included, is a person's decision the AI leaves alone). When the account lets
 * the AI work and the item needs it, the item becomes `processing` in the same transaction, so a
 * crash can never lose it: the worker picks up every `processing` item when it starts. The
 * caller hands the returned row to `AiWorker.submit` once the transaction has committed.
 */
export async function takeForAi(trx: Executor, row: StorageItemRow): Promise<StorageItemRow> {
  if (!needsAi(row) || !aiWorksOnItems(await findAiFeatures(trx, row.account_id))) return row;
  return markProcessing(trx, row.id);
}

/** What the AI uses of the storage items: its queue, and the items it works on. */
export { findStorageItem, listProcessingItems, listUnseenItems, writeItemChanges } from './storage-items.repository.ts';
