import { config } from './account.ts';
import type { Translated } from './config.ts';
import { chooseLanguage, textsFor } from './text.ts';

/** The language the banner speaks to this visitor, chosen once as the script runs. */
export const language = chooseLanguage(Object.keys(config.texts), config.banner.language_sources, {
  browser: navigator.languages || [navigator.language],
  page: [document.documentElement.lang],
  default: [config.account.default_language],
});
export const texts = textsFor(config, language);

/** The account's words for a category, item or service in the visitor's language, else its default text. */
export function own<K extends string>(thing: { [key in K]: string } & { translations: Translated<K> }, key: K): string {
  return thing.translations[language]?.[key] || thing[key];
}
