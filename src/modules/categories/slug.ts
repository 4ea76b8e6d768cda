import { transliterate } from 'transliteration';

/**
 * Category slugs: the stable, URL-safe handle of a category (`analytics`, `social_media`).
 * Words of lower-case letters and digits, joined by single `-` or `_`, at most 64 characters.
 */
export const SLUG_MAX_LENGTH = 64;
export const SLUG_PATTERN = '^[a-z0-9]+([-_][a-z0-9]+)*$';

const SLUG = new RegExp(SLUG_PATTERN);
const COMBINING_MARKS = /[\u0300-\u036f]/g;

export function isValidSlug(slug: string): boolean {
  return slug.length <= SLUG_MAX_LENGTH && SLUG.test(slug);
}

/**
 * The default slug of a name: written in Latin letters (`Аналитика` → `analitika`, `分析` →
 * `fen-xi`, `Préférences` → `preferences`; the `transliteration` package), lower-cased, every run
 * of other characters turned into one `-`, trimmed of `-` at both ends and cut to the maximum
 * length. A name without any letter or digit in any script gives ''.
 */
export function slugify(name: string): string {
  const words = transliterate(name.normalize('NFC'))
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return words.slice(0, SLUG_MAX_LENGTH).replace(/-+$/, '');
}
