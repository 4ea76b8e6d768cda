import { BUILT_IN_LANGUAGES } from '../../../banner/src/translations.ts';
import type { TextTranslations } from '../../db/schema.ts';
import { ValidationError } from '../../http/app-errors.ts';
import type { Problems } from '../../http/validation.ts';

/** Languages an account may offer or write in: every visitor downloads all of them with the script. */
export const MAX_LANGUAGES = 30;

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** `de-CH` falls back to `de`. */
export const primaryOf = (code: string) => code.split('-')[0];

/**
 * A language tag in its canonical form whose language the runtime knows: `de`, `de-CH`, `pt-BR`,
 * `zh-Hant`; not `xx`, nor `EN` or `de-ch`: one spelling per language, so that no language is stored twice.
 */
export function knownLanguage(code: string): boolean {
  if ((BUILT_IN_LANGUAGES as readonly string[]).includes(code)) return true;
  if (code.length > 35 || !/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(code)) return false;
  try {
    if (Intl.getCanonicalLocales(code)[0] !== code) return false;
  } catch {
    return false;
  }
  return languageNames.of(primaryOf(code)) !== undefined;
}

/** Adds a problem for each code that is no known language (`Translations has an unknown language code: xx`). */
export function checkLanguageCodes(problems: Problems, field: string, codes: Iterable<string>): void {
  for (const code of codes) {
    if (!knownLanguage(code)) problems.add(field, `has an unknown language code: ${code.length > 35 ? `${code.slice(0, 35)}…` : code}`);
  }
}

/** Changes to texts by language: a text to set, or null (or empty) to drop it; a language null drops all of its texts. */
export type TranslationChanges<K extends string> = Record<string, Partial<Record<K, string | null>> | null>;

/**
 * The texts stored, with the changes merged in one language and one text at a time. Texts are
 * trimmed; an empty one is no text, and a language left without texts is dropped.
 */
export function mergeTranslations<K extends string>(stored: TextTranslations<K>, changes: TranslationChanges<K>): TextTranslations<K> {
  const out: TextTranslations<K> = { ...stored };
  for (const [code, given] of Object.entries(changes)) {
    const kept = Object.entries({ ...out[code], ...given })
      .map(([key, text]) => [key, typeof text === 'string' ? text.trim() : ''])
      .filter(([, text]) => text !== '');
    if (given === null || kept.length === 0) delete out[code];
    else out[code] = Object.fromEntries(kept);
  }
  if (Object.keys(out).length > MAX_LANGUAGES) {
    throw new ValidationError(`Translations has too many languages (maximum is ${MAX_LANGUAGES})`);
  }
  return out;
}

/**
 * The languages a banner speaks: the account's default language first, then the ones it chose, or
 * (none chosen) every language with built-in words and every one it wrote banner texts in.
 */
export function offeredLanguages(defaultLanguage: string, chosen: readonly string[] | undefined, written: readonly string[]): string[] {
  return [...new Set([defaultLanguage, ...(chosen ?? [...BUILT_IN_LANGUAGES, ...written])])];
}

/**
 * An account's texts in each language the banner speaks, completed from the language's shorter
 * tags (`de-CH` takes what `de` says and it does not); a language with nothing of its own is left
 * out: the banner shows the default text there.
 */
export function translationsFor<K extends string>(translations: TextTranslations<K>, languages: readonly string[]): TextTranslations<K> {
  const out: TextTranslations<K> = {};
  for (const language of languages) {
    const subtags = language.split('-');
    const merged = Object.assign({}, ...subtags.map((_, i) => translations[subtags.slice(0, i + 1).join('-')]));
    if (Object.keys(merged).length > 0) out[language] = merged;
  }
  return out;
}
