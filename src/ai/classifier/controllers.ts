import { firstAtOrAfter, type CookieFact } from '../knowledge/knowledge.ts';
import { registrableDomain } from './features.ts';
import type { Feature } from './model.ts';

/**
 * Vendor priors for the scored fallback: the controllers (companies) of the known cookies an item
 * most resembles, i.e. those sharing its longest name prefix (at least MIN_SHARED_PREFIX
 * characters: `_hjFoo` → Hotjar) and those seen on its registrable domain. What the model learns
 * about a vendor's listed cookies then carries over to the vendor's unlisted ones. Each controller
 * gets its share of the vote, so one vendor weighs as much as several together.
 *
 * A training fact is described without its own name (leave one out), so that during training it
 * looks the way an unlisted name will look when classified.
 */

const MIN_SHARED_PREFIX = 4;

interface KnownName {
  folded: string;
  company: string;
}

function sharedPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export class Controllers {
  /** Each (lower-cased name, company) once, sorted by name: names sharing a prefix are neighbours. */
  private readonly names: KnownName[];
  private readonly byDomain = new Map<string, KnownName[]>();

  constructor(facts: CookieFact[]) {
    const seen = new Set<string>();
    const names: KnownName[] = [];
    for (const fact of facts) {
      if (!fact.company) continue;
      const known = { folded: fact.name.toLowerCase(), company: fact.company };
      const key = `${known.folded}\u0000${known.company}`;
      if (fact.domain) {
        const domain = registrableDomain(fact.domain);
        const onDomain = this.byDomain.get(domain);
        if (!onDomain) this.byDomain.set(domain, [known]);
        else if (!onDomain.some((other) => other.folded === known.folded && other.company === known.company)) onDomain.push(known);
      }
      if (seen.has(key)) continue;
      seen.add(key);
      names.push(known);
    }
    this.names = names.sort((a, b) => (a.folded < b.folded ? -1 : a.folded > b.folded ? 1 : 0));
  }

  /** Weighted `ctl:<company>` features; `name` itself, when known, is left out. */
  features(name: string, host: string): Feature[] {
    const folded = (name.includes('*') ? name.replace(/\*/g, '') : name).toLowerCase();
    const shares = new Map<string, number>();
    this.share(shares, this.nearestByPrefix(folded));
    if (host) this.share(shares, (this.byDomain.get(registrableDomain(host)) ?? []).filter((known) => known.folded !== folded));
    return Array.from(shares, ([company, share]) => [`ctl:${company}`, share] as const);
  }

  private share(shares: Map<string, number>, known: KnownName[]) {
    const companies = new Set(known.map((k) => k.company));
    for (const company of companies) shares.set(company, (shares.get(company) ?? 0) + 1 / companies.size);
  }

  /** The other known names sharing the longest prefix with `folded`, if that prefix is long enough. */
  private nearestByPrefix(folded: string): KnownName[] {
    const low = firstAtOrAfter(this.names, folded);
    let longest = MIN_SHARED_PREFIX;
    let nearest: KnownName[] = [];
    // Sorted names share less of `folded` the further they are from where it would stand.
    const consider = (known: KnownName): boolean => {
      if (known.folded === folded) return true;
      const shared = sharedPrefix(known.folded, folded);
      if (shared > longest) {
        longest = shared;
        nearest = [];
      }
      if (shared < longest) return false;
      nearest.push(known);
      return true;
    };
    for (let i = low; i < this.names.length && consider(this.names[i]); i++);
    for (let i = low - 1; i >= 0 && consider(this.names[i]); i--);
    return nearest;
  }
}
