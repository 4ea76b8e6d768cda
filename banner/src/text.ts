import type { BannerConfig, LanguageSource } from './config.ts';
import type { Texts } from './translations.ts';

/** Everything the banner shows is text: the service's and the account's words never become markup. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `zh-Hant-TW` → `zh-hant-tw`, `zh-hant`, `zh`: the tag, then each shorter prefix of its subtags. */
function prefixes(tag: string): string[] {
  const subtags = tag.toLowerCase().split('-');
  return subtags.map((_, i) => subtags.slice(0, subtags.length - i).join('-'));
}

/**
 * The first language one of the sources asks for (in the account's order, then the account's
 * default language) that the banner speaks, else English, else the first it speaks. A tag falls
 * back to each shorter prefix (`zh-Hant-TW` → `zh-Hant` → `zh`, `de-AT` → `de`), in any letter
 * case: `<html lang="de-ch">` finds the account's `de-CH`.
 */
export function chooseLanguage(spoken: string[], order: readonly LanguageSource[], asked: Record<LanguageSource, readonly string[]>): string {
  const known = new Map(spoken.map((code) => [code.toLowerCase(), code]));
  for (const source of [...order, 'default' as const]) {
    for (const raw of asked[source]) {
      for (const prefix of raw ? prefixes(raw) : []) {
        const found = known.get(prefix);
        if (found) return found;
      }
    }
  }
  return known.get('en') ?? spoken[0];
}

export function textsFor(config: BannerConfig, language: string): Texts {
  return config.texts[language] ?? config.texts.en;
}
