import type { BannerConfig } from './config.ts';
import type { Texts } from './translations.ts';

/** Everything the banner shows is text: the service's and the account's words never become markup. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function candidates(config: BannerConfig): string[] {
  const nav = typeof navigator !== 'undefined' ? navigator.language : '';
  return [document.documentElement.lang, nav, config.account.default_language, 'en'];
}

/** `zh-Hant-TW` → `zh-hant-tw`, `zh-hant`, `zh`: the tag, then each shorter prefix of its subtags. */
function prefixes(tag: string): string[] {
  const subtags = tag.toLowerCase().split('-');
  return subtags.map((_, i) => subtags.slice(0, subtags.length - i).join('-'));
}

/**
 * `<html lang>`, then the browser's language, then the account's; a tag falls back to each shorter
 * prefix (`zh-Hant-TW` → `zh-Hant` → `zh`, `de-AT` → `de`).
 */
export function chooseLanguage(config: BannerConfig): string {
  // Tags are compared in any letter case: `<html lang="de-ch">` finds the account's `de-CH`.
  const known = new Map(Object.keys(config.texts).map((code) => [code.toLowerCase(), code]));
  for (const raw of candidates(config)) {
    if (!raw) continue;
    for (const prefix of prefixes(raw)) {
      const found = known.get(prefix);
      if (found) return found;
    }
  }
  return Object.keys(config.texts)[0];
}

export function textsFor(config: BannerConfig, language: string): Texts {
  return config.texts[language] ?? config.texts.en;
}
