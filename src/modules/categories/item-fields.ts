import { isId } from '../../db/ids.ts';
import { toJson, type Executor } from '../../db/kysely.ts';
import type { TextTranslations } from '../../db/schema.ts';
import type { Problems } from '../../http/validation.ts';
import { checkLanguageCodes, mergeTranslations, type TranslationChanges } from '../banner/banner.service.ts';
import { findCategory } from './categories.repository.ts';

/*
 * What cleaning the fields of a category, a service and a storage item shares before they are
 * written: their texts trimmed, the category they name checked, their texts in other languages
 * checked and then merged with those stored. Each module's own checks go between, in its order.
 */

/** The texts among `keys` that were sent, trimmed; a name must not be blank (a problem otherwise). */
export function trimTexts<K extends string>(problems: Problems, fields: Partial<Record<K, string>>, keys: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const text = fields[key];
    if (text !== undefined) out[key] = key === 'name' ? problems.required(key, text) : text.trim();
  }
  return out;
}

/** A category named must be one of the account's: another account's is answered as none at all, so existence never leaks. */
export async function checkCategory(db: Executor, problems: Problems, accountId: string, categoryId: string | null | undefined): Promise<void> {
  // An empty string names no category either (it would reach the uuid column and fail there).
  if (typeof categoryId === 'string' && !(isId(categoryId) && (await findCategory(db, accountId, categoryId)))) problems.add('category', 'must exist');
}

/** Every language code of the texts in other languages sent must be a known one. */
export function checkTranslations(problems: Problems, sent: TranslationChanges<string> | undefined): void {
  if (sent !== undefined) checkLanguageCodes(problems, 'translations', Object.keys(sent));
}

/** The texts in other languages as the column stores them: those sent merged with those stored. */
export function storedTranslations<K extends string>(stored: TextTranslations<K> | undefined, sent: TranslationChanges<K>): string {
  return toJson(mergeTranslations(stored ?? {}, sent));
}
