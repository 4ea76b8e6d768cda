import { newId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import { currentActor, type Actor } from '../../lib/actor-context.ts';
import { insertAuditEntry } from './audit-log.repository.ts';

/** Fields that hold a secret or what would let one be guessed: never written to the log. */
const SECRET = /secret|password|token_hash|^token$|salt|invite_url/i;

/** A value as the log keeps it: JSON (dates as ISO strings), every secret field left out at any depth. */
export function redacted(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return undefined;
  if (Array.isArray(value)) return value.map(redacted);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (SECRET.test(key) || field === undefined) continue;
      out[key] = redacted(field);
    }
    return out;
  }
  return value;
}

/**
 * Of a change, the fields that differ, before and after (both objects); a field absent on one side
 * is null there. A creation keeps its whole `after`, a deletion its whole `before`.
 */
function changedFields(before: unknown, after: unknown): { before: unknown; after: unknown } {
  if (before === null || after === null || typeof before !== 'object' || typeof after !== 'object' || Array.isArray(before) || Array.isArray(after)) {
    return { before, after };
  }
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const was: Record<string, unknown> = {};
  const is: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (JSON.stringify(b[key]) === JSON.stringify(a[key])) continue;
    was[key] = b[key] ?? null;
    is[key] = a[key] ?? null;
  }
  return { before: was, after: is };
}

export interface AuditChange {
  accountId: string;
  /** What was changed: `account`, `category`, `storage_item`, `service`, `banner`, `account_user`, `account_invitation`, `api_token`, `ai_action`, `scan`, `webhook`. */
  resourceType: string;
  resourceId: string | null;
  /** `create`, `update`, `delete`, or the action's name (`revert`, `approve`, `resend`, `accept`, `reconsent`, `start`, …). */
  action: string;
  before?: unknown;
  after?: unknown;
  /** Who made it: by default whoever the current request or job runs as (lib/actor-context.ts). */
  actor?: Actor;
}

/**
 * Records a change of an account's configuration: who, when, what, and the fields before and after
 * (secrets left out). Given the transaction the change is made in, it is stored with the change or not at all.
 */
export async function recordAudit(db: Executor, change: AuditChange): Promise<void> {
  const actor = change.actor ?? currentActor();
  const fields = change.action === 'update'
    ? changedFields(redacted(change.before ?? null), redacted(change.after ?? null))
    : { before: redacted(change.before ?? null), after: redacted(change.after ?? null) };
  await insertAuditEntry(db, {
    id: newId(),
    account_id: change.accountId,
    actor_type: actor.type,
    actor_id: actor.id,
    resource_type: change.resourceType,
    resource_id: change.resourceId,
    action: change.action,
    before: fields.before === null ? null : JSON.stringify(fields.before),
    after: fields.after === null ? null : JSON.stringify(fields.after),
  });
}

export { runAs } from '../../lib/actor-context.ts';
