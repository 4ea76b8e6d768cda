import type { ApiTokenRow } from '../../db/schema.ts';

interface Entry {
  row: ApiTokenRow | undefined;
  cachedAt: number;
}

/**
 * Token lookups by hash, kept in memory so that a warm request costs no database round trip.
 * A revoke forgets the hash at once here and, through `onRevoke` listeners (Redis pub/sub), on
 * every other instance; the time-to-live bounds what a lost broadcast could leave behind.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 50_000,
  ) {}

  get(hash: string, now = Date.now()): Entry | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (now - entry.cachedAt > this.ttlMs) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry;
  }

  set(hash: string, row: ApiTokenRow | undefined, now = Date.now()): void {
    if (this.entries.size >= this.maxEntries) {
      // Map keeps insertion order: drop the oldest tenth rather than growing without bound.
      let drop = Math.ceil(this.maxEntries / 10);
      for (const key of this.entries.keys()) {
        this.entries.delete(key);
        if (--drop === 0) break;
      }
    }
    this.entries.set(hash, { row, cachedAt: now });
  }

  forget(hash: string): void {
    this.entries.delete(hash);
  }
}
