import { describe, expect, it } from 'vitest';
import { durationOf, sitemapLocations } from '../../src/scanner/crawl.ts';

describe('durationOf', () => {
  const now = Date.UTC(2026, 10, 23);
  const at = (seconds: number) => now / 1000 + seconds;
  it.each([
    [-1, 'session'],
    [at(30), '1 minute'],
    [at(59 * 60 + 59.6), '1 hour'],
    [at(3600 * 5), '5 hours'],
    [at(86_400 - 2), '1 day'],
    [at(90 * 86_400 - 3), '90 days'],
    [at(365 * 86_400 - 1), '1 year'],
    [at(400 * 86_400), '400 days'],
    [at(730 * 86_400), '2 years'],
  ])('%s → %s', (expires, expected) => {
    expect(durationOf(expires, now)).toBe(expected);
  });
});

describe('sitemapLocations', () => {
  it('reads every <loc>, entities decoded, spaces trimmed', () => {
    const xml = `<?xml version="1.0"?><urlset><url><loc> https://example.com/a?x=1&amp;y=2 </loc></url>
      <url><LOC>https://example.com/b</LOC></url><sitemap><loc>https://example.com/more.xml</loc></sitemap></urlset>`;
    expect(sitemapLocations(xml)).toEqual(['https://example.com/a?x=1&y=2', 'https://example.com/b', 'https://example.com/more.xml']);
    expect(sitemapLocations('<html>not a sitemap</html>')).toEqual([]);
  });
});
