import { describe, expect, it } from 'vitest';
import { isValidSlug, slugify } from '../../../src/modules/categories/slug.ts';

describe('slugify', () => {
  it.each([
    ['Analytics', 'analytics'],
    ['Marketing & Ads', 'marketing-ads'],
    ['  spaced   out  ', 'spaced-out'],
    ['snake_case_name', 'snake-case-name'],
    ['Préférences', 'preferences'],
    ['Ölçüm', 'olcum'],
    ['123 Go', '123-go'],
    ['!!!', ''],
    ['Аналитика', 'analitika'],
    ['分析', 'fen-xi'],
    ['Ελληνικά', 'ellinika'],
    ['Straße', 'strasse'],
    ['🍪', ''],
    ['', ''],
  ])('%j → %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('cuts to 64 characters without a trailing dash, and its output is always valid or empty', () => {
    expect(slugify('a'.repeat(100))).toBe('a'.repeat(64));
    expect(slugify(`${'b'.repeat(63)} c`)).toBe('b'.repeat(63));
    for (const name of ['x y z', '—dash—', 'A  B__C--D', `${'long '.repeat(30)}`, 'ﬁne ligature']) {
      const slug = slugify(name);
      expect(slug === '' || isValidSlug(slug), `${name} → ${slug}`).toBe(true);
    }
  });
});

describe('isValidSlug', () => {
  it.each(['a', 'a1', 'a-b', 'a_b', 'a-b_c-1', 'x'.repeat(64)])('accepts %j', (slug) => {
    expect(isValidSlug(slug)).toBe(true);
  });

  it.each(['', 'A', 'a b', '-a', 'a-', 'a--b', 'a-_b', '_a', 'é', 'x'.repeat(65)])('refuses %j', (slug) => {
    expect(isValidSlug(slug)).toBe(false);
  });
});
