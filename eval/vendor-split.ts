import { createHash } from 'node:crypto';
import type { StandardCategory } from '../src/ai/knowledge/categories.ts';
import type { RegistryVendor } from '../src/ai/knowledge/registry.ts';

/**
 * The evaluation set, made mechanically from the registry (labels from each vendor's own
 * documentation, under the convention), never picked or edited by hand:
 * - held-out vendors: every third-party vendor whose SHA-256 of its name falls in HELD_OUT_PERCENT;
 * - the framework set: every framework and platform (WordPress, Django, Laravel...).
 * Neither is in the registry the evaluated classifier is built from: no vendor is on both sides.
 * Items look as a scanner of a real site reports them: on the site's own (first-party) domain,
 * with no duration, a pattern's `*` filled in as a concrete name.
 */
export const HELD_OUT_PERCENT = 30;

export function isHeldOutVendor(vendor: string): boolean {
  return createHash('sha256').update(`vendor:${vendor}`).digest().readUInt32BE(0) % 100 < HELD_OUT_PERCENT;
}

export interface EvalItem {
  name: string;
  domain: string;
  expected: StandardCategory;
  vendor: string;
  set: 'held-out vendors' | 'frameworks';
}

/** Sites the items are reported on: first-party hosts, none a known third party. */
const SITES = ['www.shop-example.com', 'example-news.org', 'blog.example.co.uk', 'app.example-saas.io', 'example-travel.de'];

function pick<T>(list: readonly T[], key: string): T {
  return list[createHash('sha256').update(key).digest().readUInt32BE(0) % list.length];
}

/** `_ga_*` → `_ga_K7Q2X9`: what a scanner sees of a pattern. */
function concrete(pattern: string): string {
  return pattern.replace(/\*/g, (_, offset: number) => (offset === 0 ? 'site42' : 'K7Q2X9'));
}

/**
 * A vendor's names as a scanner reports them, each once: a name two vendors both document is kept
 * under the first (`seen` holds the names already taken).
 */
export function asScanned(vendor: RegistryVendor, seen: Set<string>): Array<Omit<EvalItem, 'set'>> {
  const items: Array<Omit<EvalItem, 'set'>> = [];
  for (const [pattern, category] of vendor.cookies) {
    const name = concrete(pattern);
    if (seen.has(name)) continue;
    seen.add(name);
    items.push({ name, domain: pick(SITES, name), expected: category, vendor: vendor.vendor });
  }
  return items;
}

export function evaluationSplit(vendors: RegistryVendor[]): { build: RegistryVendor[]; items: EvalItem[] } {
  const build: RegistryVendor[] = [];
  const items: EvalItem[] = [];
  const seen = new Set<string>();
  for (const vendor of vendors) {
    const set: EvalItem['set'] | undefined = vendor.kind === 'framework' ? 'frameworks' : isHeldOutVendor(vendor.vendor) ? 'held-out vendors' : undefined;
    if (!set) build.push(vendor);
    else items.push(...asScanned(vendor, seen).map((item) => ({ ...item, set })));
  }
  return { build, items };
}
