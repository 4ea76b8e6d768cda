import { transliterate } from 'transliteration';
import type { Problems } from '../../http/validation.ts';

/**
 * Slugs: the stable, URL-safe handle of a category (`analytics`, `social_media`) or a service.
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

/**
 * The slug a write stores: the one sent, or (when creating, or when an empty one is sent) the
 * default made from the name, which must be free in the account (`taken`). A slug made from the
 * name is the name's problem: the client sent no slug to blame. Undefined when the slug stays.
 */
export async function settleSlug(
  problems: Problems,
  sent: { name?: string; slug?: string },
  current: { id: string; name: string } | undefined,
  taken: (slug: string, exceptId?: string) => Promise<boolean>,
): Promise<string | undefined> {
  const name = sent.name ?? current?.name ?? '';
  const wantsDefault = !sent.slug && (sent.slug !== undefined || !current);
  const slug = wantsDefault ? slugify(name) : sent.slug;
  if (slug === '') {
    // A blank name is its own problem.
    if (name !== '') problems.add('name', 'has no letter or digit to make a slug from; send a slug');
  } else if (slug !== undefined && (await taken(slug, current?.id))) {
    if (wantsDefault) problems.add('name', `has already been taken (its slug ${slug} is in use; send another slug)`);
    else problems.add('slug', 'has already been taken');
  }
  return slug;
}
