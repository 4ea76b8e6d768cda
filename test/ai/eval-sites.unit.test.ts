/**
 * The realistic-site evaluation set: every name labelled and attributed, and no site one the
 * registry took its facts from (the set would then measure the registry against itself).
 */
import { describe, expect, it } from 'vitest';
import { loadRegistryVendors } from '../../src/ai/knowledge/registry.ts';
import { loadSites } from '../../eval/sites.ts';

const hostOf = (url: string) => new URL(url).hostname.replace(/^www\./, '');

describe('the realistic-site evaluation set', () => {
  const sites = loadSites();

  it('holds sites with labelled names, each site once', () => {
    expect(sites.length).toBeGreaterThanOrEqual(20);
    for (const site of sites) expect(site.cookies.length, site.host).toBeGreaterThanOrEqual(3);
    const hosts = sites.map((site) => hostOf(site.url));
    expect(new Set(hosts).size).toBe(hosts.length);
  });

  it('takes no site the registry cites', () => {
    const cited = new Set(loadRegistryVendors().flatMap((vendor) => vendor.sources.flatMap((source) => [source.url, source.via ?? ''])).filter(Boolean).map(hostOf));
    expect(sites.map((site) => hostOf(site.url)).filter((host) => cited.has(host))).toEqual([]);
  });
});
