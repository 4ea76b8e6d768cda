import { describe, expect, it } from 'vitest';
import { etagMatches } from '../../src/http/if-none-match.ts';

describe('etagMatches', () => {
  const etag = '"abc"';
  it('matches the tag, its weak form, one of a list, or *', () => {
    expect(etagMatches(etag, etag)).toBe(true);
    expect(etagMatches(`W/${etag}`, etag)).toBe(true);
    expect(etagMatches(`"other", W/${etag}`, etag)).toBe(true);
    expect(etagMatches('*', etag)).toBe(true);
  });

  it('does not match another tag, a tag without its quotes, or no header', () => {
    expect(etagMatches('"other"', etag)).toBe(false);
    expect(etagMatches('abc', etag)).toBe(false);
    expect(etagMatches('"abc-gzip"', etag)).toBe(false);
    expect(etagMatches(undefined, etag)).toBe(false);
    expect(etagMatches('', etag)).toBe(false);
  });
});
