import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fromOpenCookieDatabase, type StandardCategory } from '../src/ai/knowledge/categories.ts';
import { normaliseDuration } from '../src/ai/knowledge/durations.ts';
import { normaliseHost } from '../src/ai/knowledge/knowledge.ts';
import type { OpenCookieDatabaseRow } from '../src/ai/knowledge/sources.ts';

/**
 * The deterministic split of the Open Cookie Database into what the evaluated classifier may know
 * (build) and what it is tested on (held out): by the SHA-256 of the lower-cased name without `*`,
 * so every row of a name, in any letter case, falls on the same side.
 */
export const HELD_OUT_PERCENT = 20;

export function splitKey(cookie: string): string {
  return cookie.trim().replace(/\*+$/, '').toLowerCase();
}

export function isHeldOut(cookie: string): boolean {
  const digest = createHash('sha256').update(splitKey(cookie)).digest();
  return digest.readUInt32BE(0) % 100 < HELD_OUT_PERCENT;
}

/** Rows split in two; `exclude` holds further keys kept out of the build side (the committed held-out names). */
export function splitRows(rows: OpenCookieDatabaseRow[], exclude: Set<string>) {
  const build: OpenCookieDatabaseRow[] = [];
  const heldOut: OpenCookieDatabaseRow[] = [];
  for (const row of rows) {
    if (isHeldOut(row.cookie)) heldOut.push(row);
    else if (!exclude.has(splitKey(row.cookie))) build.push(row);
  }
  return { build, heldOut };
}

/** One labelled storage item of the held-out set, as the API would receive it. */
export interface LabelledItem {
  name: string;
  domain: string;
  /** As a scanner sees it; normalised. */
  duration: string;
  storage_type: 'cookie';
  /** The expected standard category. */
  category: StandardCategory;
  /** Where the label comes from: the Open Cookie Database row's platform and category. */
  platform: string;
  ocd_category: string;
}

export interface HeldOutFile {
  about: string;
  licence: string;
  split: string;
  items: LabelledItem[];
}

export const HELD_OUT_PATH = new URL('./held-out-storage-items.json', import.meta.url);

/**
 * The labelled items of the held-out rows: one per name, a pattern row as a wildcard item
 * (`_ga_` → `_ga_*`). Names the database lists with different categories have no single true
 * label and are left out.
 */
export function labelledItems(heldOut: OpenCookieDatabaseRow[]): LabelledItem[] {
  const byKey = new Map<string, OpenCookieDatabaseRow[]>();
  for (const row of heldOut) {
    const key = splitKey(row.cookie);
    if (key === '') continue;
    byKey.set(key, [...(byKey.get(key) ?? []), row]);
  }
  const items: LabelledItem[] = [];
  for (const rows of byKey.values()) {
    const categories = new Set(rows.map((row) => fromOpenCookieDatabase(row.category)));
    const [row] = rows;
    const category = fromOpenCookieDatabase(row.category);
    if (categories.size !== 1 || !category) continue;
    const name = row.cookie.trim().replace(/\*+$/, '');
    items.push({
      name: row.wildcardMatch === '1' || row.cookie.trim().endsWith('*') ? `${name}*` : name,
      domain: normaliseHost(row.domain),
      duration: normaliseDuration(row.retentionPeriod) ?? '',
      storage_type: 'cookie',
      category,
      platform: row.platform,
      ocd_category: row.category,
    });
  }
  return items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function writeHeldOut(items: LabelledItem[]): void {
  const file: HeldOutFile = {
    about: 'Storage items held out of the knowledge the evaluated classifier is built from; labels from the Open Cookie Database',
    licence: 'Apache-2.0: derived from the Open Cookie Database (https://github.com/jkwakman/Open-Cookie-Database), as shipped in @slashgear/gdpr-cookie-scanner',
    split: `sha256(lower-cased name without *) first 4 bytes, big-endian, mod 100 < ${HELD_OUT_PERCENT}`,
    items,
  };
  writeFileSync(HELD_OUT_PATH, `${JSON.stringify(file, null, 1)}\n`);
}

export function readHeldOut(): HeldOutFile {
  return JSON.parse(readFileSync(HELD_OUT_PATH, 'utf8')) as HeldOutFile;
}
