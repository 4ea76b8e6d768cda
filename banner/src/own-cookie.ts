import type { BuiltInLanguage } from './translations.ts';

/**
 * The banner's own cookie: where it keeps the visitor's choice (see stored.ts), necessary on every
 * site that runs it. A scan finds it like any other cookie; these are its words in every language
 * the banner ships with, for the catalogue and for the visitor.
 */
export const OWN_COOKIE_DESCRIPTIONS: Record<BuiltInLanguage, string> = {
  en: 'Keeps your choice in this consent banner (which kinds of storage you allowed, and when), so that the site respects it and does not ask again.',
  de: 'Speichert Ihre Wahl in diesem Einwilligungsbanner (welche Arten von Speicher Sie erlaubt haben und wann), damit die Website sie beachtet und nicht erneut fragt.',
  fr: 'Conserve votre choix dans ce bandeau de consentement (les types de stockage autorisés, et quand), pour que le site le respecte et ne vous le redemande pas.',
  es: 'Guarda tu elección en este banner de consentimiento (qué tipos de almacenamiento permitiste y cuándo), para que el sitio la respete y no vuelva a preguntarte.',
  it: 'Memorizza la tua scelta in questo banner del consenso (quali tipi di archiviazione hai consentito e quando), perché il sito la rispetti e non te la chieda di nuovo.',
  nl: 'Bewaart je keuze in deze toestemmingsbanner (welke soorten opslag je toestond en wanneer), zodat de site die respecteert en het niet opnieuw vraagt.',
};

/** The names the banner keeps the choice under: the account's own, and the one older scripts shared. */
export const ownCookieNames = (accountId: string): string[] => [`consentry_${accountId.replace(/-/g, '')}`, 'consentry'];

/** The banner's own words for its cookie in a language (`de-CH` reads `de`), English when it has none. */
export function ownCookieDescription(language: string): string {
  const base = language.toLowerCase().split('-')[0];
  return OWN_COOKIE_DESCRIPTIONS[base as BuiltInLanguage] ?? OWN_COOKIE_DESCRIPTIONS.en;
}

/**
 * What a visitor reads of an item: for the banner's own cookie whose description the account left
 * empty or as the banner wrote it (in any language), the banner's words in the visitor's language;
 * else the account's own words.
 */
export function itemDescription(item: { name: string; description: string }, accountId: string, language: string): string {
  const builtIn = item.description === '' || Object.values(OWN_COOKIE_DESCRIPTIONS).includes(item.description);
  return builtIn && ownCookieNames(accountId).includes(item.name) ? ownCookieDescription(language) : item.description;
}
