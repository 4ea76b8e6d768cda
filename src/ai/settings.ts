import { Type, type Static } from 'typebox';
import type { Executor } from '../db/kysely.ts';
import type { StorageItemRow } from '../db/schema.ts';

/**
 * What the AI may do on an account, each switch on its own. All off until the account turns
 * them on: the AI changes what visitors are asked to consent to, so it is opted into, not imposed.
 */
export const AiFeaturesSchema = Type.Object({
  autofill: Type.Boolean({ description: 'Fill empty description, company_name and duration from the knowledge' }),
  auto_categorise: Type.Boolean({ description: 'Put uncategorised storage items in a standard category, creating it when missing' }),
  auto_approve: Type.Boolean({ description: 'Finalise what the AI categorised when its confidence reaches the threshold' }),
  auto_approve_threshold: Type.Number({ minimum: 0, maximum: 1, description: 'Confidence from which auto_approve finalises' }),
}, { description: 'What the AI may do on this account' });
export type AiFeatures = Static<typeof AiFeaturesSchema>;

/** Only the settings sent change. */
export const AiFeaturesChanges = Type.Partial(AiFeaturesSchema);
export type AiFeaturesChange = Static<typeof AiFeaturesChanges>;

export const DEFAULT_AI_FEATURES: AiFeatures = {
  autofill: false,
  auto_categorise: false,
  auto_approve: false,
  auto_approve_threshold: 0.95,
};

/** The stored settings over the defaults; unknown stored keys are ignored. */
export function aiFeaturesOf(stored: Record<string, unknown> | null | undefined): AiFeatures {
  const out: AiFeatures = { ...DEFAULT_AI_FEATURES };
  for (const key of Object.keys(DEFAULT_AI_FEATURES) as Array<keyof AiFeatures>) {
    const value = stored?.[key];
    if (typeof value === typeof DEFAULT_AI_FEATURES[key]) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/** Whether the AI has anything to do on the account's items at all. */
export const aiWorksOnItems = (features: AiFeatures): boolean => features.autofill || features.auto_categorise;

export async function findAiFeatures(db: Executor, accountId: string): Promise<AiFeatures> {
  const row = await db.selectFrom('accounts').select('ai_features').where('id', '=', accountId).executeTakeFirst();
  return aiFeaturesOf(row?.ai_features);
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
  const taken = await trx
    .updateTable('storage_items')
    .set({ status: 'processing' })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return taken;
}
