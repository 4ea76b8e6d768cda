/**
 * A bounded map whose entries expire: the in-memory caches of the hot paths (tokens, memberships,
 * account categories, widget accounts) and the in-memory rate-limit windows. `get` answers
 * `{ value }` so that "known to be absent" can be cached too. Entries are kept in the order they
 * were set (a key set again moves to the back), which is the order they expire: each `set` drops
 * the expired ones from the front, and when the map is still full, the oldest tenth.
 */
export class TtlMap<K, V> {
  private readonly entries = new Map<K, { value: V; at: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: K, now = Date.now()): { value: V } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now - entry.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: K, value: V, now = Date.now()): V {
    this.entries.delete(key);
    for (const [old, entry] of this.entries) {
      if (now - entry.at < this.ttlMs) break;
      this.entries.delete(old);
    }
    if (this.entries.size >= this.maxEntries) {
      let drop = Math.ceil(this.maxEntries / 10);
      for (const old of this.entries.keys()) {
        this.entries.delete(old);
        if (--drop === 0) break;
      }
    }
    this.entries.set(key, { value, at: now });
    return value;
  }

  forget(key: K): void {
    this.entries.delete(key);
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }
}
