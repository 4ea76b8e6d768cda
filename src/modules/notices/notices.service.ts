import { hash as digest } from 'node:crypto';
import type { Executor } from '../../db/kysely.ts';
import { canonicalJson } from '../../lib/canonical-json.ts';
import type { MaybePromise } from '../../lib/maybe-promise.ts';
import { TtlMap } from '../../lib/ttl-map.ts';
import { insertSnapshot, snapshotExists } from './notices.repository.ts';
import { noticeChanged } from '../webhooks/webhooks.service.ts';

/**
 * A notice's canonical form and hash: the JSON value (as JSON.parse gives it: no `undefined`) written
 * with every object's keys sorted and no whitespace (lib/canonical-json.ts), and the SHA-256 of
 * that text's UTF-8 bytes, in hex.
 */
export function canonicalNotice(content: unknown): { hash: string; text: string } {
  const text = canonicalJson(content);
  return { hash: digest('sha256', text, 'hex'), text };
}

/**
 * Stores the snapshot of what an account's banner shows, once per distinct content (a second call
 * with the same content stores nothing): `created` says whether it was new. The widget calls it
 * before it serves a configuration, so that every `notice_hash` a visitor can send back is stored.
 * The hook for whoever wants to hear of a changed notice: `created` is true once per change.
 */
export async function recordNoticeSnapshot(db: Executor, accountId: string, content: unknown): Promise<{ hash: string; created: boolean }> {
  const { hash, text } = canonicalNotice(content);
  // A new snapshot and its `notice.changed` webhook are committed together.
  const record = async (trx: Executor) => {
    const created = await insertSnapshot(trx, accountId, hash, text);
    if (created) await noticeChanged(trx, accountId, { notice_hash: hash, created_at: new Date().toISOString() });
    return { hash, created };
  };
  return db.isTransaction ? record(db) : db.transaction().execute(record);
}

/**
 * Which notice hashes an account holds, remembered (snapshots are never changed, and go only with
 * their account): a consent naming the notice most visitors were shown costs no round trip.
 */
export class NoticeHashes {
  private readonly known = new TtlMap<string, true>(10 * 60_000, 10_000);

  constructor(private readonly db: Executor) {}

  /** Remembers a hash just stored (or found stored). */
  remember(accountId: string, hash: string): void {
    this.known.set(`${accountId}:${hash}`, true);
  }

  /** Whether the account holds a snapshot of this hash. */
  has(accountId: string, hash: string): MaybePromise<boolean> {
    const key = `${accountId}:${hash}`;
    if (this.known.get(key)) return true;
    return snapshotExists(this.db, accountId, hash).then((exists) => {
      if (exists) this.known.set(key, true);
      return exists;
    });
  }
}
