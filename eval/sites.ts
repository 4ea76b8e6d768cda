import { readFileSync } from 'node:fs';
import { STANDARD_CATEGORIES, type StandardCategory } from '../src/ai/knowledge/categories.ts';

/**
 * The realistic-site sets: what real websites say they set, from their own cookie policies, each
 * name labelled by hand under the convention from what its vendor documents (or, for the site's own
 * cookies, what the site says it does). How the sites were sampled and labelled is in each file's
 * `about`; each set was committed before the classifier was first run on it. The first set then
 * guided additions to the registry, the second two fixes; each later set was drawn after the changes
 * the sets before it guided, to measure them untouched.
 */
export const SITE_SETS = ['sites.json', 'sites-2.json', 'sites-3.json', 'sites-4.json', 'sites-5.json', 'sites-6.json', 'sites-7.json', 'sites-8.json', 'sites-9.json', 'sites-10.json', 'sites-11.json', 'sites-12.json', 'sites-13.json', 'sites-14.json', 'sites-15.json', 'sites-16.json', 'sites-17.json', 'sites-18.json', 'sites-19.json', 'sites-20.json', 'sites-21.json', 'sites-22.json', 'sites-23.json', 'sites-24.json', 'sites-25.json', 'sites-26.json', 'sites-27.json', 'sites-28.json'] as const;

export interface SiteCookie {
  /** As a scanner reports it: a listed placeholder (`_ga_<container-id>`) filled in. */
  name: string;
  expected: StandardCategory;
  /** Whose it is, and for the site's own cookies what the site says it does. */
  source: string;
}

export interface Site {
  url: string;
  host: string;
  read: string;
  foundBy: string;
  cookies: SiteCookie[];
}

interface SitesFile {
  about: string[];
  /** `domain`: the site's, when its declaration is hosted elsewhere (by a consent tool). */
  sites: Array<{ url: string; domain?: string; read: string; found_by: string; cookies: Array<[string, string, string]> }>;
}

const isCategory = (value: string): value is StandardCategory => (STANDARD_CATEGORIES as readonly string[]).includes(value);

export function loadSites(file: (typeof SITE_SETS)[number]): Site[] {
  const data = JSON.parse(readFileSync(new URL(`./${file}`, import.meta.url), 'utf8')) as SitesFile;
  return data.sites.map((site) => {
    const host = site.domain ?? new URL(site.url).hostname;
    const names = new Set<string>();
    const cookies = site.cookies.map(([name, expected, source]) => {
      if (!name || names.has(name)) throw new Error(`${host}: "${name}" is empty or listed twice`);
      if (!isCategory(expected)) throw new Error(`${host}: "${name}" has no standard category (${expected})`);
      if (!source) throw new Error(`${host}: "${name}" says nothing of whose it is`);
      names.add(name);
      return { name, expected, source };
    });
    if (!/^\d{4}-\d{2}-\d{2}$/.test(site.read) || !site.found_by) throw new Error(`${host}: no date read or no query it was found by`);
    return { url: site.url, host, read: site.read, foundBy: site.found_by, cookies };
  });
}
