import { fromThirdPartyWeb, type StandardCategory } from './categories.ts';
import { normaliseDuration } from './durations.ts';
import { HostMap, normaliseHost } from './host-names.ts';
import { relabelOpenCookieDatabase } from './ocd-relabel.ts';
import type { RegistryEntry } from './registry.ts';
import type { OpenCookieDatabaseRow, ThirdPartyEntity } from './sources.ts';

/** What a cookie database says about one name, or about every name starting with `name` (`pattern`). */
export interface CookieFact {
  name: string;
  pattern: boolean;
  category: StandardCategory;
  description: string;
  company: string;
  duration: string | undefined;
  /** Host the database saw it on, without a leading dot; '' when not stated. */
  domain: string;
  /** Why the label differs from the database's own (relabelling under the convention). */
  relabelled?: string;
  /** Why the label is only a guess (ocd-relabel.ts): neither a decision nor a lesson for the model. */
  uncertain?: string;
}

export interface DomainFact {
  entity: string;
  company: string;
  /** Undefined when the entity's category says nothing about its cookies (`other`). */
  category: StandardCategory | undefined;
  thirdPartyCategory: string;
}

/** Prefixes shorter than this (`SR`, `CT`) would match far too much; they count as plain names. */
const MIN_PATTERN_LENGTH = 3;

export function factsFromOpenCookieDatabase(rows: OpenCookieDatabaseRow[]): CookieFact[] {
  const facts: CookieFact[] = [];
  for (const row of rows) {
    const raw = row.cookie.trim();
    const relabelled = relabelOpenCookieDatabase(row.platform, row.category, raw, row.domain);
    if (!relabelled || raw === '') continue;
    const { category } = relabelled;
    const name = raw.replace(/\*+$/, '');
    const pattern = (row.wildcardMatch === '1' || raw.endsWith('*')) && name.length >= MIN_PATTERN_LENGTH;
    facts.push({
      name,
      pattern,
      category,
      description: row.description.trim(),
      company: (row.dataController || row.platform).trim(),
      duration: normaliseDuration(row.retentionPeriod),
      domain: normaliseHost(row.domain),
      relabelled: relabelled.rule,
      ...(relabelled.uncertain ? { uncertain: relabelled.uncertain } : {}),
    });
  }
  return facts;
}

/** Registry entries as facts, to train the model on (a pattern by its text before the first `*`). */
export function factsFromRegistry(entries: RegistryEntry[]): CookieFact[] {
  return entries
    .filter((entry) => !entry.pattern.startsWith('*'))
    .map((entry) => ({
      name: entry.wildcard ? entry.pattern.slice(0, entry.pattern.indexOf('*')) : entry.pattern,
      pattern: entry.wildcard,
      category: entry.category,
      description: entry.purpose,
      company: entry.vendor,
      duration: undefined,
      domain: '',
    }));
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** In names sorted by `folded`, where `folded` would stand: the first one not before it. */
export function firstAtOrAfter(sorted: ReadonlyArray<{ folded: string }>, folded: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid].folded < folded) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The indexes the classifier looks names and domains up in, built once from the sources. */
export class Knowledge {
  private readonly exact = new Map<string, CookieFact[]>();
  private readonly exactFolded = new Map<string, CookieFact[]>();
  private readonly patterns = new Map<string, CookieFact[]>();
  private readonly longestPattern: number;
  /** Every plain name, lower-cased and sorted: the names a wildcard item covers are one range. */
  private readonly sortedNames: Array<{ folded: string; fact: CookieFact }>;
  private readonly domains = new HostMap<DomainFact>();

  constructor(facts: CookieFact[], entities: ThirdPartyEntity[]) {
    let longest = 0;
    for (const fact of facts) {
      if (fact.pattern) {
        push(this.patterns, fact.name.toLowerCase(), fact);
        longest = Math.max(longest, fact.name.length);
      } else {
        push(this.exact, fact.name, fact);
        push(this.exactFolded, fact.name.toLowerCase(), fact);
      }
    }
    this.longestPattern = longest;
    this.sortedNames = facts
      .filter((fact) => !fact.pattern)
      .map((fact) => ({ folded: fact.name.toLowerCase(), fact }))
      .sort((a, b) => (a.folded < b.folded ? -1 : a.folded > b.folded ? 1 : 0));
    for (const entity of entities) {
      const fact: DomainFact = {
        entity: entity.name,
        company: entity.company ?? entity.name,
        category: fromThirdPartyWeb(entity.category),
        thirdPartyCategory: entity.category,
      };
      this.domains.add(entity.domains, fact);
    }
  }

  /** Facts about exactly this name; `folded` when only a case-insensitive match exists. */
  exactFacts(name: string): { facts: CookieFact[]; folded: boolean } | undefined {
    const facts = this.exact.get(name);
    if (facts) return { facts, folded: false };
    const folded = this.exactFolded.get(name.toLowerCase());
    return folded ? { facts: folded, folded: true } : undefined;
  }

  /** The facts of the longest listed pattern that `name` starts with (case-insensitive). */
  patternFacts(name: string): CookieFact[] | undefined {
    const folded = name.toLowerCase();
    for (let length = Math.min(folded.length, this.longestPattern); length >= MIN_PATTERN_LENGTH; length--) {
      const facts = this.patterns.get(folded.slice(0, length));
      if (facts) return facts;
    }
    return undefined;
  }

  /** Plain names starting with `prefix` (case-insensitive): what a wildcard item `prefix*` stands for. */
  namesStartingWith(prefix: string): CookieFact[] {
    const folded = prefix.toLowerCase();
    if (folded.length < MIN_PATTERN_LENGTH) return [];
    const low = firstAtOrAfter(this.sortedNames, folded);
    const out: CookieFact[] = [];
    for (let i = low; i < this.sortedNames.length && this.sortedNames[i].folded.startsWith(folded); i++) {
      out.push(this.sortedNames[i].fact);
    }
    return out;
  }

  /** The third-party entity behind a host or one of its parent domains. */
  domainFact(host: string): DomainFact | undefined {
    return this.domains.find(host);
  }
}
