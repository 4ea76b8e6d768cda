import type { ApiTokenRow } from '../../db/schema.ts';
import type { Executor } from '../../db/kysely.ts';
import type { MaybePromise } from '../../lib/maybe-promise.ts';
import { TtlMap } from '../../lib/ttl-map.ts';
import { findTokenByHash } from './tokens.repository.ts';

/**
 * Token rows by hash, so that a warm request costs no database round trip. A revoke forgets the
 * hash here and, through Redis, on every other instance (`forgetTokens` of services.ts); the lifetime
 * bounds what a lost broadcast leaves behind. A cached row is answered at once, without a promise
 * (see lib/maybe-promise.ts for what that measured).
 */
export class TokenLookup {
  private readonly rows = new TtlMap<string, ApiTokenRow | undefined>(30_000, 50_000);

  constructor(private readonly db: Executor) {}

  byHash(hash: string): MaybePromise<ApiTokenRow | undefined> {
    const cached = this.rows.get(hash);
    if (cached) return cached.value;
    return findTokenByHash(this.db, hash).then((row) => this.rows.set(hash, row));
  }

  forget(hash: string): void {
    this.rows.forget(hash);
  }
}
