/**
 * The realistic-site evaluation sets: every name labelled and attributed, no site in two sets, and
 * no site one the registry took its facts from (the set would then measure the registry against
 * itself).
 */
import { describe, expect, it } from 'vitest';
import { loadRegistryVendors } from '../../src/ai/knowledge/registry.ts';
import { loadSites, SITE_SETS } from '../../eval/sites.ts';

const bare = (host: string) => host.replace(/^www\./, '');
const hostOf = (url: string) => bare(new URL(url).hostname);

describe('the realistic-site evaluation sets', () => {
  const sets = SITE_SETS.map((file) => ({ file, sites: loadSites(file) }));
  const hosts = sets.flatMap(({ sites }) => sites.flatMap((site) => [...new Set([hostOf(site.url), bare(site.host)])]));

  it('hold sites with labelled names, each site once across the sets', () => {
    for (const { file, sites } of sets) {
      expect(sites.length, file).toBeGreaterThanOrEqual(20);
      for (const site of sites) expect(site.cookies.length, site.host).toBeGreaterThanOrEqual(3);
    }
    expect(new Set(hosts).size).toBe(hosts.length);
  });

  it('take no site the registry cites', () => {
    const cited = new Set(loadRegistryVendors().flatMap((vendor) => vendor.sources.flatMap((source) => [source.url, source.via ?? ''])).filter(Boolean).map(hostOf));
    expect(hosts.filter((host) => cited.has(host))).toEqual([]);
  });
});
