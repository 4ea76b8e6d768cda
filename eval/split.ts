import { createHash } from 'node:crypto';
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
