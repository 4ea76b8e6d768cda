import { readdirSync, readFileSync } from 'node:fs';
import { STANDARD_CATEGORIES, type StandardCategory } from './categories.ts';
import { isGenericName } from './convention.ts';
import { HostMap } from './host-names.ts';
import { dataFile } from './sources.ts';

/**
 * The project's own registry of vendors and frameworks: which names they set, what for (in our
 * own words), the standard category under the convention (convention.ts), and the page of the
 * vendor's documentation each fact was taken from, with the date it was read. It is checked
 * before the Open Cookie Database. Files: src/ai/knowledge/data/registry/*.json.
 */

/**
 * A source page; `read` is the date (YYYY-MM-DD) it was read. `via`: the vendor's page was read
 * through this copy of it (a mirror, or a site publishing the vendor's own list unchanged).
 */
export interface RegistrySource {
  url: string;
  read: string;
  via?: string;
}

/** `[pattern, category, purpose]`, or with the index of its source in `sources` (default 0). */
export type RegistryCookie = [pattern: string, category: StandardCategory, purpose: string, source?: number];

export interface RegistryVendor {
  vendor: string;
  /** `framework`: a web framework, CMS or shop platform whose names live on the site's own domain. */
  kind: 'vendor' | 'framework';
  /** What an unlisted name of this vendor most likely is (its main product). */
  category: StandardCategory;
  /** Name prefixes only this vendor uses (`_hj`), for the fallback; may be empty. */
  prefixes: string[];
  /** Domains the vendor serves from, for the fallback; may be empty. */
  domains: string[];
  sources: RegistrySource[];
  cookies: RegistryCookie[];
}

export interface RegistryEntry {
  /** As written in the registry: `*` stands for any run of characters (`_ga_*`). */
  pattern: string;
  regex: RegExp;
  /** Whether the pattern has a `*`. */
  wildcard: boolean;
  /** The text before the first `*`, lower-cased. */
  literal: string;
  vendor: string;
  kind: RegistryVendor['kind'];
  purpose: string;
  category: StandardCategory;
  url: string;
  read: string;
}

/** `_ga_*` → /^_ga_.*$/: only `*` is special, the rest is literal. Case-sensitive, as cookie names are. */
export function compilePattern(pattern: string, flags = ''): RegExp {
  const source = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${source}$`, flags);
}

export function loadRegistryVendors(): RegistryVendor[] {
  const dir = dataFile('registry');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => JSON.parse(readFileSync(new URL(`registry/${file}`, dir), 'utf8')) as RegistryVendor[]);
}

export function registryEntries(vendors: RegistryVendor[]): RegistryEntry[] {
  return vendors.flatMap((vendor) =>
    vendor.cookies.map(([pattern, category, purpose, source]) => {
      const { url, read } = vendor.sources[source ?? 0] ?? { url: '', read: '' };
      const star = pattern.indexOf('*');
      return {
        pattern,
        regex: compilePattern(pattern),
        wildcard: star !== -1,
        literal: (star === -1 ? pattern : pattern.slice(0, star)).toLowerCase(),
        vendor: vendor.vendor,
        kind: vendor.kind,
        purpose,
        category,
        url,
        read,
      };
    }),
  );
}

/** Whether a value is one of the standard categories (the registry test checks every entry). */
export const isStandardCategory = (value: unknown): value is StandardCategory =>
  (STANDARD_CATEGORIES as readonly unknown[]).includes(value);

export interface RegistryMatch {
  entry: RegistryEntry;
  how: 'exact name' | 'name, ignoring case' | 'pattern' | 'listed names covered by the wildcard';
  /** For a wildcard item: how many registry names it covers. */
  covered?: number;
}

/**
 * A vendor's prefix shorter than this is not its own: measured on the registry's vendors, a
 * three-character prefix (`BT_`, `nf_`) was also the start of another vendor's names for one in
 * five of them, and the fallback through one was right 90% of the time on the vendor's own held-out
 * names, against 97% through longer ones.
 */
const MIN_FALLBACK_PREFIX = 4;
/** A wildcard item's text before its `*` must be this long to be read through the names it covers. */
const MIN_COVERING_LITERAL = 3;
/**
 * A name shorter than this matches a listed name only in the same letter case: short names are
 * different cookies in another case (Google's `SID`, a site's own session `sid`).
 */
const MIN_FOLDED_NAME = 5;
/**
 * A pattern anchored only at its end (`*_key`) matches names only when that end is at least this
 * long: a short one ends the names of many vendors (HubSpot's `*_key` would take a partner
 * program's `ps_partner_key` and a form plugin's `gf_setup_wizard_invalid_key` as its own).
 */
const MIN_SUFFIX_ONLY_TEXT = 6;
/**
 * Nor when that end is only generic words (convention.ts): Vimeo's `*_password` (a video's id, then
 * `_password`) took a shop software's own `ilance_password`, a sign-in cookie, for a video's.
 */
const isCommonSuffix = (text: string): boolean => text.length < MIN_SUFFIX_ONLY_TEXT || isGenericName(text);

/** The registry's lookups: names and patterns, and the vendor a prefix or a domain belongs to. */
export class Registry {
  private readonly exact = new Map<string, RegistryEntry>();
  private readonly folded = new Map<string, RegistryEntry>();
  /** Wildcard entries, longest literal first: the most specific pattern wins. */
  private readonly patterns: RegistryEntry[];
  private readonly byWildcardText = new Map<string, RegistryEntry>();
  private readonly prefixes: Array<{ prefix: string; vendor: RegistryVendor }>;
  private readonly domains = new HostMap<RegistryVendor>();

  constructor(readonly vendors: RegistryVendor[], readonly entries: RegistryEntry[] = registryEntries(vendors)) {
    for (const entry of entries) {
      if (entry.wildcard) {
        this.byWildcardText.set(entry.pattern.toLowerCase(), entry);
        continue;
      }
      if (!this.exact.has(entry.pattern)) this.exact.set(entry.pattern, entry);
      const folded = entry.pattern.toLowerCase();
      if (!this.folded.has(folded)) this.folded.set(folded, entry);
    }
    this.patterns = entries
      .filter((entry) => entry.wildcard && !(entry.literal === '' && isCommonSuffix(entry.pattern.replace(/\*/g, ''))))
      .sort((a, b) => b.literal.length - a.literal.length);
    const claims = vendors.flatMap((vendor) =>
      vendor.prefixes.filter((prefix) => prefix.length >= MIN_FALLBACK_PREFIX).map((prefix) => ({ prefix: prefix.toLowerCase(), vendor })));
    // A prefix is a vendor's own only if no vendor of another purpose claims an overlapping one or
    // lists a name under it (etracker's and Blockthrough's `BT_`, Customer.io's `ajs_` names).
    const otherPurpose = (claim: { prefix: string; vendor: RegistryVendor }) =>
      claims.some((other) => other.vendor.category !== claim.vendor.category && (other.prefix.startsWith(claim.prefix) || claim.prefix.startsWith(other.prefix))) ||
      entries.some((entry) => entry.vendor !== claim.vendor.vendor && entry.category !== claim.vendor.category && entry.literal.startsWith(claim.prefix));
    this.prefixes = claims.filter((claim) => !otherPurpose(claim)).sort((a, b) => b.prefix.length - a.prefix.length);
    for (const vendor of vendors) {
      this.domains.add(vendor.domains, vendor);
    }
  }

  /** What the registry lists for a name: exact, then ignoring case, then the most specific pattern. */
  match(name: string): RegistryMatch | undefined {
    const star = name.indexOf('*');
    if (star === -1) {
      const exact = this.exact.get(name);
      if (exact) return { entry: exact, how: 'exact name' };
      const folded = name.length >= MIN_FOLDED_NAME ? this.folded.get(name.toLowerCase()) : undefined;
      if (folded) return { entry: folded, how: 'name, ignoring case' };
      const pattern = this.patterns.find((entry) => entry.regex.test(name));
      return pattern ? { entry: pattern, how: 'pattern' } : undefined;
    }
    // A wildcard item: the same pattern, a pattern that covers it, or the listed names it covers.
    const same = this.byWildcardText.get(name.toLowerCase());
    if (same) return { entry: same, how: 'pattern' };
    const literal = name.slice(0, star);
    const wider = this.patterns.find((entry) => literal.toLowerCase().startsWith(entry.literal) && entry.regex.test(literal));
    if (wider) return { entry: wider, how: 'pattern' };
    if (literal.length < MIN_COVERING_LITERAL) return undefined;
    const folded = literal.toLowerCase();
    const covered = this.entries.filter((entry) => !entry.wildcard && entry.pattern.toLowerCase().startsWith(folded));
    const categories = new Set(covered.map((entry) => entry.category));
    // Only when every covered name agrees: a wildcard over names of several purposes has no one answer.
    return covered.length > 0 && categories.size === 1 ? { entry: covered[0], how: 'listed names covered by the wildcard', covered: covered.length } : undefined;
  }

  /** The vendor whose own prefix the name starts with (longest prefix first). */
  vendorByPrefix(name: string): { vendor: RegistryVendor; prefix: string } | undefined {
    const folded = name.replace(/\*/g, '').toLowerCase();
    const found = this.prefixes.find(({ prefix }) => folded.startsWith(prefix));
    return found && { vendor: found.vendor, prefix: found.prefix };
  }

  /** The vendor serving from a host or one of its parent domains. */
  vendorByDomain(host: string): RegistryVendor | undefined {
    return this.domains.find(host);
  }
}
