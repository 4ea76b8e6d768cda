import type { StandardCategory } from './categories.ts';
import { necessaryRule } from './convention.ts';
import type { CookieFact } from './knowledge.ts';

/**
 * A description the database gives more names than this is generic ("collects information on a
 * visitor"): sharing it says nothing of a common purpose.
 */
const MAX_SIBLINGS = 12;

/**
 * The database's rows a vendor's documentation labels through their siblings. The database often
 * describes a family of one vendor's names in one sentence (Google's `SID`, `HSID`, `APISID`,
 * `SAPISID`, `SSID` and `SIDCC`, all "download certain Google tools and save certain
 * preferences"); when the registry lists some of that family from the vendor's own documentation,
 * and those agree on a category, the rest of the family takes it too (Google files `SID` and
 * `HSID` as its sign-in records: on a website they come with an embedded Google service,
 * functional, where the database calls the whole family marketing). Only between optional
 * purposes: a family's necessary member does not make the others necessary, nor the other way
 * round, and a consent name keeps its own reading. Returns each relabelled fact's new version.
 */
export function relabelledBySiblings(facts: CookieFact[], registryListing: (name: string) => { vendor: string; category: StandardCategory } | undefined): Map<CookieFact, CookieFact> {
  // The registry's listing of a sibling counts only under the same company: a name one vendor sets
  // can be another's in the database (Qualaroo's `ki_r` among Shopify's rows).
  const registryCategory = (fact: CookieFact): StandardCategory | undefined => {
    const listing = fact.pattern ? undefined : registryListing(fact.name);
    return listing && sameCompany(listing.vendor, fact.company) ? listing.category : undefined;
  };
  const families = new Map<string, CookieFact[]>();
  for (const fact of facts) {
    if (!fact.description) continue;
    const key = `${fact.company}\u0000${fact.description}`;
    const family = families.get(key);
    if (family) family.push(fact);
    else families.set(key, [fact]);
  }
  const relabelled = new Map<CookieFact, CookieFact>();
  for (const family of families.values()) {
    if (family.length < 2 || family.length > MAX_SIBLINGS) continue;
    const listed = new Map<CookieFact, StandardCategory>();
    for (const fact of family) {
      const category = registryCategory(fact);
      if (category) listed.set(fact, category);
    }
    const categories = new Set(listed.values());
    if (categories.size !== 1) continue;
    const [category] = categories;
    if (category === 'necessary') continue;
    const names = [...listed.keys()].map((sibling) => `\`${sibling.name}\``).join(', ');
    for (const fact of family) {
      if (listed.has(fact) || fact.category === category || fact.category === 'necessary' || necessaryRule(fact.name) === 'consent') continue;
      relabelled.set(fact, { ...fact, category, relabelled: `described as its sibling ${names}, which the registry lists as ${category}`, uncertain: undefined });
    }
  }
  return relabelled;
}

const sameCompany = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();
