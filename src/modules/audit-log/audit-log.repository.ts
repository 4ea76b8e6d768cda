import { sql } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import { listPage, type Window } from '../../db/list-page.ts';
import type { AuditEntryRow, NewAuditEntry } from '../../db/schema.ts';
import type { Sort } from '../../http/pagination.ts';

export async function insertAuditEntry(db: Executor, entry: NewAuditEntry): Promise<void> {
  await db.insertInto('audit_log').values(entry).execute();
}

export interface AuditFilters {
  actor_type?: AuditEntryRow['actor_type'];
  actor_id?: string;
  resource_type?: string;
  resource_id?: string;
  since?: string;
  until?: string;
}

/** A page of the account's audit log, with the count of the entries matching the filters. */
export async function listAuditEntries(db: Executor, accountId: string, filters: AuditFilters, sort: Sort<'created_at'>, window: Window) {
  let scoped = db.selectFrom('audit_log').where('account_id', '=', accountId);
  if (filters.actor_type !== undefined) scoped = scoped.where('actor_type', '=', filters.actor_type);
  if (filters.actor_id !== undefined) scoped = scoped.where('actor_id', '=', filters.actor_id);
  if (filters.resource_type !== undefined) scoped = scoped.where('resource_type', '=', filters.resource_type);
  if (filters.resource_id !== undefined) scoped = scoped.where('resource_id', '=', filters.resource_id);
  if (filters.since !== undefined) scoped = scoped.where('created_at', '>=', sql<Date>`${filters.since}::timestamptz`);
  if (filters.until !== undefined) scoped = scoped.where('created_at', '<', sql<Date>`${filters.until}::timestamptz`);
  return listPage(scoped, (q) => q.selectAll().orderBy('created_at', sort.order).orderBy('id', sort.order), window);
}
