import type { Kysely } from 'kysely';
import { STANDARD_CATEGORY_DEFINITIONS, standardCategoryText, type StandardCategory } from '../../ai/knowledge/categories.ts';
import { bestMatch } from '../../ai/knowledge/category-meaning.ts';
import { newId } from '../../db/ids.ts';
import { isForeignKeyViolation, isUniqueViolation, toJson, type Executor } from '../../db/kysely.ts';
import type { CategoryRow, Database } from '../../db/schema.ts';
import { found, NotFoundError, ValidationError } from '../../http/app-errors.ts';
import { Problems } from '../../http/validation.ts';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import { accountLanguage, markVendorsSetup } from '../accounts/accounts.service.ts';
import { accountLanguages, bumpRevision } from '../banner/banner.service.ts';
import {
  allCategories,
  categoryHoldsStorageItems,
  deleteCategory,
  findCategory,
  findCategoryBySlug,
  insertCategory,
  insertCategoryUnlessTaken,
  slugTaken,
  updateCategory,
  type CategoryValues,
} from './categories.repository.ts';
import type { CategoryFields } from './categories.schema.ts';
import { checkTranslations, storedTranslations, trimTexts } from './item-fields.ts';
import { settleSlug } from './slug.ts';

/** What other modules use of the categories. */
export { findCategory } from './categories.repository.ts';
export { CategoryCache } from './category-cache.ts';
export { settleSlug } from './slug.ts';
export { checkCategory, checkTranslations, storedTranslations, trimTexts } from './item-fields.ts';

/** The account's first required category (by creation), if it has one: where what every site needs goes. */
export async function firstRequiredCategory(db: Executor, accountId: string): Promise<CategoryRow | undefined> {
  return (await allCategories(db, accountId)).find((category) => category.required);
}

/** What a change of an account's categories needs: the database, and the caches of them to forget. */
export interface CategoryWrites {
  db: Kysely<Database>;
  /** Forgets the accounts' cached categories (and the banners that show them), here and on every other instance. */
  forgetCategories(accountIds: string[]): Promise<void>;
}

export const SLUG_TAKEN = 'Slug has already been taken';
export const CATEGORY_IN_USE = 'Category still holds storage items; move or delete them first';

/**
 * Trims the texts, merges the texts in other languages with those stored, and settles the slug:
 * the one sent, or (when creating, or when an empty one is sent) the default made from the name.
 * The slug must be free in the account.
 */
async function cleanFields(db: Executor, accountId: string, fields: CategoryFields, current?: CategoryRow): Promise<CategoryValues> {
  const problems = new Problems();
  const { translations, ...rest } = fields;
  const out: CategoryValues = { ...rest, ...trimTexts(problems, fields, ['name', 'description']) };
  checkTranslations(problems, translations);
  const slug = await settleSlug(problems, { name: out.name, slug: fields.slug }, current, (wanted, exceptId) => slugTaken(db, accountId, wanted, exceptId));
  if (slug !== undefined) out.slug = slug;
  problems.throwIfAny();
  if (translations !== undefined) out.translations = storedTranslations(current?.translations, translations);
  return out;
}

const rethrowTaken = (error: unknown): never => {
  if (isUniqueViolation(error)) throw new ValidationError(SLUG_TAKEN);
  throw error;
};

/**
 * A new category; when it is published the banner asks visitors again, since they were asked about
 * the categories there were. (The revision follows what the banner shows: an unpublished category
 * changes nothing a visitor saw, and publishing or unpublishing one later raises it.)
 */
export async function createCategory(writes: CategoryWrites, accountId: string, sent: CategoryFields): Promise<CategoryRow> {
  const { db } = writes;
  const fields = await cleanFields(db, accountId, sent);
  const default_language = fields.default_language ?? (await accountLanguage(db, accountId));
  const row = await db
    .transaction()
    .execute(async (trx) => {
      const created = await insertCategory(trx, accountId, { ...fields, name: fields.name!, slug: fields.slug!, default_language });
      await recordAudit(trx, { accountId, resourceType: 'category', resourceId: created.id, action: 'create', after: created });
      await markVendorsSetup(trx, accountId);
      if (created.published) await bumpRevision(trx, accountId);
      return created;
    })
    .catch(rethrowTaken);
  await writes.forgetCategories([accountId]);
  return row;
}

/** Only the fields sent change. */
export async function changeCategory(writes: CategoryWrites, accountId: string, id: string, sent: CategoryFields): Promise<CategoryRow> {
  const { db } = writes;
  const current = found(await findCategory(db, accountId, id));
  const fields = await cleanFields(db, accountId, sent, current);
  const row = await db
    .transaction()
    .execute(async (trx) => {
      const changed = await updateCategory(trx, accountId, current.id, fields);
      if (changed) await recordAudit(trx, { accountId, resourceType: 'category', resourceId: current.id, action: 'update', before: current, after: changed });
      if (changed && changed.published !== current.published) await bumpRevision(trx, accountId);
      return changed;
    })
    .catch(rethrowTaken);
  await writes.forgetCategories([accountId]);
  if (!row) throw new NotFoundError();
  return row;
}

/** Deletes a category that holds no storage items. */
export async function removeCategory(writes: CategoryWrites, accountId: string, id: string): Promise<void> {
  const { db } = writes;
  const current = found(await findCategory(db, accountId, id));
  if (await categoryHoldsStorageItems(db, accountId, id)) throw new ValidationError(CATEGORY_IN_USE);
  const deleted = await db
    .transaction()
    .execute(async (trx) => {
      const gone = await deleteCategory(trx, accountId, id);
      if (gone) await recordAudit(trx, { accountId, resourceType: 'category', resourceId: id, action: 'delete', before: current });
      if (gone && current.published) await bumpRevision(trx, accountId);
      return gone;
    })
    .catch((error: unknown) => {
      // A storage item moved into it between the check and the delete.
      if (isForeignKeyViolation(error)) throw new ValidationError(CATEGORY_IN_USE);
      throw error;
    });
  await writes.forgetCategories([accountId]);
  if (!deleted) throw new NotFoundError();
}

/**
 * The account's category for a standard one: an existing category whose slug, name or description
 * means it (in any language of ai/knowledge/category-meaning.ts), or else a new one the AI creates (`created`). A new
 * category is unpublished, so that it never shows in the banner until an admin publishes it,
 * unless the account lets the AI approve (`publish`): then the banner's revision rises with it.
 * It is worded in the account's language, and in each other language its banner speaks, where
 * the knowledge words it (else in English, untranslated).
 */
export async function categoryForStandard(
  db: Executor,
  accountId: string,
  standard: StandardCategory,
  publish: boolean,
): Promise<{ category: CategoryRow; created: boolean }> {
  const existing = await allCategories(db, accountId);
  const matched = bestMatch(existing, standard);
  if (matched) return { category: matched, created: false };

  const definition = STANDARD_CATEGORY_DEFINITIONS[standard];
  const taken = new Set(existing.map((row) => row.slug));
  const slug = [standard, `${standard}-ai`, `${standard}-ai-${newId().slice(-8)}`].find((candidate) => !taken.has(candidate))!;
  const { language, others } = await accountLanguages(db, accountId);
  const worded = standardCategoryText(standard, language) ?? definition;
  const translations = Object.fromEntries(others.flatMap((code) => {
    const text = standardCategoryText(standard, code);
    return text ? [[code, text]] : [];
  }));
  // Another instance may create it at the same moment: the unique slug keeps one, and it is taken.
  const inserted = await insertCategoryUnlessTaken(db, accountId, {
    name: worded.name,
    slug,
    description: worded.description,
    required: definition.required,
    published: publish,
    // Whatever slug it gets (`marketing-ai` when `marketing` is taken), it is the marketing category.
    sale_or_sharing: standard === 'marketing',
    default_language: language,
    translations: toJson(translations),
  });
  if (inserted) {
    await recordAudit(db, { accountId, resourceType: 'category', resourceId: inserted.id, action: 'create', after: inserted });
    if (inserted.published) await bumpRevision(db, accountId);
    return { category: inserted, created: true };
  }
  return { category: (await findCategoryBySlug(db, accountId, slug))!, created: false };
}
