import type { Kysely } from 'kysely';
import { AI_ACTOR } from '../../lib/actor-context.ts';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import { toJson, type Executor } from '../../db/kysely.ts';
import type { ApprovedByType, Database, ItemText, StorageItemRow, StorageItemStatus, TextTranslations } from '../../db/schema.ts';
import { accountLanguageAndDomain, findAiFeatures } from '../accounts/accounts.service.ts';
import { accountLanguages } from '../banner/banner.service.ts';
import { categoryForStandard } from '../categories/categories.service.ts';
import { findStorageItem, writeItemChanges } from '../storage-items/storage-items.service.ts';
import { categoryCreated, hasOpenSuggestion, revertedFields, type NewAiAction } from './ai-actions.repository.ts';
import type { Classification, Classifier, Finding } from '../../ai/classifier/classifier.ts';
import { durationIn, normaliseDuration } from '../../ai/knowledge/durations.ts';
import type { TextProvider } from '../../ai/providers.ts';
import { recordAiAction } from './record-ai-action.ts';

export interface WorkContext {
  db: Kysely<Database>;
  classifier: Classifier;
  text: TextProvider | undefined;
  /** A failure of the text provider: the work goes on without its text. */
  onTextError(error: unknown): void;
}

/** What the text provider wrote, asked before the transaction so that no lock waits on it. */
interface Written {
  description: Finding<string> | undefined;
  translation: Finding<string> | undefined;
  /** The description in the account's other languages, by language code. */
  translations: Record<string, Finding<string>>;
}

/** The languages the AI writes an item's texts in: the account's, and the others its banner speaks. */
interface Languages {
  language: string;
  others: string[];
}

const FILLABLE = ['description', 'company_name', 'duration'] as const;
type Fillable = (typeof FILLABLE)[number];

const isEnglish = (language: string) => language.split('-')[0] === 'en';

/** Where a duration said in another language comes from. */
const DURATION_SOURCE = "durations: worded from the runtime's locale data";

async function write(context: WorkContext, item: StorageItemRow, found: Classification, languages: Languages, autofill: boolean): Promise<Written> {
  const { language } = languages;
  const written: Written = { description: undefined, translation: undefined, translations: {} };
  const { text } = context;
  // The knowledge's descriptions are English: its text is the English one wherever the account has English.
  const english = item.description === '' ? found.description : undefined;
  if (english && autofill) {
    for (const code of languages.others) if (isEnglish(code)) written.translations[code] = english;
  }
  if (!text) return written;
  try {
    if (!found.description && item.description === '') {
      const value = await text.describe({
        name: item.name, domain: item.domain, storageType: item.storage_type,
        category: found.category?.value, companyName: item.company_name || (found.companyName?.value ?? ''), language,
      });
      if (value) written.description = { value, confidence: 0.6, source: text.source };
    }
    if (found.description && !isEnglish(language)) {
      const value = await text.translate(found.description.value, language);
      if (value) written.translation = { value, confidence: 0.8, source: text.source };
    }
    // The description the item will have, in each other language the banner speaks that has none yet.
    const description = item.description || (written.translation ?? found.description ?? written.description)?.value;
    for (const code of autofill && description ? languages.others : []) {
      if (written.translations[code] || item.translations[code]?.description) continue;
      const value = await text.translate(description!, code);
      if (value) written.translations[code] = { value, confidence: 0.8, source: text.source };
    }
  } catch (error) {
    context.onTextError(error);
  }
  return written;
}

/**
 * The item's texts in the account's other languages, where it has none: the descriptions written
 * (none when the item is left without a description), and its duration where the knowledge words
 * it in that language. Undefined when there is nothing to add.
 */
function translated(item: StorageItemRow, now: { description: string; duration: string }, written: Written, languages: Languages) {
  const translations: TextTranslations<ItemText> = structuredClone(item.translations);
  const used: Finding<string>[] = [];
  const normal = normaliseDuration(now.duration);
  for (const code of languages.others) {
    const own = (translations[code] ??= {});
    const description = now.description ? written.translations[code] : undefined;
    if (!own.description && description) {
      own.description = description.value;
      used.push(description);
    }
    const worded = normal && !own.duration ? durationIn(normal, code) : undefined;
    if (worded) {
      own.duration = worded;
      used.push({ value: worded, confidence: 1, source: DURATION_SOURCE });
    }
    if (Object.keys(own).length === 0) delete translations[code];
  }
  if (used.length === 0) return undefined;
  return {
    translations,
    confidence: Math.min(...used.map((finding) => finding.confidence)),
    source: [...new Set(used.map((finding) => finding.source))].join('; '),
  };
}

/**
 * Applies what the AI found to one `processing` item, in one transaction with every action it
 * logs. Only empty fields are filled; an item a person moved out of `processing` meanwhile is left
 * alone. It ends `in_review` when the AI changed something (`finalised` by `AI` when the account
 * auto-approves and the category's confidence reaches the threshold), else back in `draft`.
 */
async function apply(trx: Executor, itemId: string, accountId: string, found: Classification, written: Written, languages: Languages) {
  const item = await findStorageItem(trx, accountId, itemId, true);
  if (!item || item.status !== 'processing') return;
  const features = await findAiFeatures(trx, accountId);
  const reverted = await revertedFields(trx, accountId, itemId);
  const actions: NewAiAction[] = [];
  const changes: { category_id?: string; translations?: string } & Partial<Record<Fillable, string>> = {};
  const log = (action: Omit<NewAiAction, 'account_id' | 'actionable_type' | 'actionable_id'>) =>
    actions.push({ account_id: accountId, actionable_type: 'StorageItem', actionable_id: itemId, ...action });
  /** The first change the AI applies carries the move from draft to in_review, so that undoing it moves back. */
  let statusMoved = false;
  const withStatus = (suggested: Record<string, unknown>, previous: Record<string, unknown>) => {
    if (statusMoved) return { suggested_params: suggested, previous_params: previous };
    statusMoved = true;
    return { suggested_params: { ...suggested, status: 'in_review' }, previous_params: { ...previous, status: 'draft' } };
  };

  let categorised: Finding<string> | undefined;
  if (features.auto_categorise && item.category_id === null && !reverted.has('category_id')) {
    if (found.category) {
      const { category, created } = await categoryForStandard(trx, accountId, found.category.value, features.auto_approve);
      if (created) actions.push(categoryCreated(accountId, category, found.category.confidence, `standard categories, for "${item.name}"`));
      changes.category_id = category.id;
      categorised = found.category;
      log({ action_type: 'auto_categorise', ...withStatus({ category_id: category.id }, { category_id: null }), confidence: found.category.confidence, source: found.category.source });
    } else if (found.guess && !(await hasOpenSuggestion(trx, accountId, itemId))) {
      log({
        action_type: 'auto_categorise', status: 'suggested', suggested_params: { category: found.guess.value }, previous_params: {},
        confidence: found.guess.confidence, source: `${found.guess.source}; declined: not confident enough to decide`,
      });
    }
  }

  if (features.autofill) {
    // The knowledge's durations are English ones: said in the account's language where it words them.
    const duration = found.duration && { ...found.duration, value: durationIn(found.duration.value, languages.language) ?? found.duration.value };
    const findings: Record<Fillable, Finding<string> | undefined> = {
      description: found.description ?? written.description, company_name: found.companyName, duration,
    };
    const fills: Partial<Record<Fillable, string>> = {};
    const sources = new Set<string>();
    let confidence = 1;
    for (const field of FILLABLE) {
      const finding = findings[field];
      if (!finding || item[field] !== '' || reverted.has(field)) continue;
      fills[field] = finding.value;
      sources.add(finding.source);
      confidence = Math.min(confidence, finding.confidence);
    }
    const filled = Object.keys(fills) as Fillable[];
    if (filled.length > 0) {
      Object.assign(changes, fills);
      const previous = Object.fromEntries(filled.map((field) => [field, '']));
      log({ action_type: 'autofill', ...withStatus(fills, previous), confidence, source: [...sources].join('; ') });
      const { translation } = written;
      if (translation && fills.description === found.description?.value && !reverted.has('description')) {
        changes.description = translation.value;
        log({ action_type: 'translate', suggested_params: { description: translation.value }, previous_params: { description: fills.description }, confidence: translation.confidence, source: translation.source });
      }
    }
    // The duration in the knowledge's English form, which it says in other languages.
    const now = { description: changes.description ?? item.description, duration: item.duration || (fills.duration ? found.duration!.value : '') };
    const added = reverted.has('translations') ? undefined : translated(item, now, written, languages);
    // Texts in other languages alone do not ask for a review: the item keeps its status for them.
    if (added) {
      changes.translations = toJson(added.translations);
      log({
        action_type: 'translate', suggested_params: { translations: added.translations }, previous_params: { translations: item.translations },
        confidence: added.confidence, source: added.source,
      });
    }
  }

  let status: StorageItemStatus = statusMoved ? 'in_review' : 'draft';
  let approvedBy: ApprovedByType | null = null;
  if (features.auto_approve && categorised && categorised.confidence >= features.auto_approve_threshold) {
    status = 'finalised';
    approvedBy = 'AI';
    log({
      action_type: 'auto_approve', suggested_params: { status: 'finalised', approved_by_type: 'AI' },
      previous_params: { status: 'in_review', approved_by_type: null }, confidence: categorised.confidence, source: categorised.source,
    });
  }
  await writeItemChanges(trx, itemId, { ...changes, status, approved_by_type: approvedBy, ...(statusMoved ? { updated_at: new Date() } : {}) });
  for (const action of actions) await recordAiAction(trx, action);
  const after = { ...item, ...changes, ...(changes.translations !== undefined && { translations: JSON.parse(changes.translations) as unknown }), status, approved_by_type: approvedBy };
  await recordAudit(trx, {
    accountId, resourceType: 'storage_item', resourceId: itemId, action: status === 'finalised' ? 'approve' : 'update', before: item, after, actor: AI_ACTOR,
  });
}

/** The AI's work on one item: classify, ask the text provider if any, then apply. */
export async function workOn(context: WorkContext, itemId: string, accountId: string): Promise<void> {
  const { db } = context;
  const item = await findStorageItem(db, accountId, itemId);
  if (!item || item.status !== 'processing') return;
  const [account, languages, features] = await Promise.all([accountLanguageAndDomain(db, accountId), accountLanguages(db, accountId), findAiFeatures(db, accountId)]);
  const found = context.classifier.classify({
    name: item.name, domain: item.domain, duration: item.duration, setBy: item.set_by ?? undefined, site: account.domain,
  });
  const written = await write(context, item, found, languages, features.autofill);
  await db.transaction().execute((trx) => apply(trx, itemId, accountId, found, written, languages));
}
