import { sql } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import type { ScanRow, ScanStatus, ScansTable } from '../../db/schema.ts';
import { listPage } from '../../db/list-page.ts';
import { findOwnedRow } from '../../db/owned-rows.ts';
import { countRows } from '../../db/row-count.ts';
import type { Insertable } from 'kysely';
import type { Sort, Window } from '../../http/pagination.ts';

const leaseEnd = (seconds: number) => sql<Date>`now() + make_interval(secs => ${seconds})`;

export async function insertScan(db: Executor, scan: Insertable<ScansTable>): Promise<ScanRow> {
  return db.insertInto('scans').values(scan).returningAll().executeTakeFirstOrThrow();
}

export async function listScans(db: Executor, accountId: string, filters: { status?: ScanStatus }, sort: Sort<'created_at'>, window: Window) {
  let scoped = db.selectFrom('scans').where('account_id', '=', accountId);
  if (filters.status) scoped = scoped.where('status', '=', filters.status);
  return listPage(scoped, (q) => q.selectAll().orderBy(sort.sort, sort.order).orderBy('id', sort.order), window);
}

export async function findScan(db: Executor, accountId: string, id: string): Promise<ScanRow | undefined> {
  return findOwnedRow(db, 'scans', ['account_id', accountId], id);
}

export async function findActiveScan(db: Executor, accountId: string): Promise<ScanRow | undefined> {
  return db.selectFrom('scans').selectAll().where('account_id', '=', accountId).where('status', 'in', ['queued', 'in_progress']).executeTakeFirst();
}

export async function countScansSince(db: Executor, accountId: string, since: Date): Promise<number> {
  return countRows(db.selectFrom('scans').where('account_id', '=', accountId).where('created_at', '>=', since));
}

/** Holds, until the transaction ends, the right to queue a scan for this owner (one at a time). */
export async function lockOwnerScans(db: Executor, ownerId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`consentry:owner-scans:${ownerId}`}))`.execute(db);
}

/** The owner's scans queued or running, over all its accounts. */
export async function countActiveScansOf(db: Executor, ownerId: string): Promise<number> {
  return countRows(db.selectFrom('scans').where('owner_id', '=', ownerId).where('status', 'in', ['queued', 'in_progress']));
}

/** Cancels a queued or running scan; undefined when it is neither (any more). */
export async function cancelScan(db: Executor, accountId: string, id: string): Promise<ScanRow | undefined> {
  return db
    .updateTable('scans')
    .set({ status: 'cancelled', finished_at: new Date(), locked_by: null, lease_until: null, updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'in_progress'])
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes the next queued scan for this instance, round robin across owners: the owner with the fewest
 * scans running goes first, then the one whose last scan started longest ago (one never served
 * first), then its oldest scan. So one owner's backlog waits behind every other owner's next scan,
 * on every instance alike, since the turns are read from the table. Only each owner's oldest queued
 * scan is a candidate (one row per owner to sort, however long the backlogs). SKIP LOCKED lets
 * several instances claim at once on PostgreSQL without waiting on each other or taking the same
 * scan twice: a candidate another instance is claiming is passed over for the next owner's.
 */
export async function claimNextScan(db: Executor, instanceId: string, leaseS: number): Promise<ScanRow | undefined> {
  const next = sql<string>`(
    with owners as materialized (
      select q.owner_id, coalesce(r.running, 0) as running,
        (select max(l.started_at) from scans l where l.owner_id = q.owner_id) as last_started,
        (select f.id from scans f where f.owner_id = q.owner_id and f.status = 'queued' order by f.created_at, f.id limit 1) as first_id
      from (select distinct owner_id from scans where status = 'queued') q
      left join (select owner_id, count(*) as running from scans where status = 'in_progress' group by owner_id) r on r.owner_id = q.owner_id
    )
    select s.id from owners o join scans s on s.id = o.first_id
    where s.status = 'queued'
    order by o.running, o.last_started nulls first, s.created_at, s.id
    limit 1
    for update of s skip locked
  )`;
  return db
    .updateTable('scans')
    .set({
      status: 'in_progress',
      locked_by: instanceId,
      lease_until: leaseEnd(leaseS),
      attempts: sql`attempts + 1`,
      pages_scanned: 0,
      started_at: sql`coalesce(started_at, now())`,
      updated_at: new Date(),
    })
    .where('id', '=', next)
    .where('status', '=', 'queued')
    .returningAll()
    .executeTakeFirst();
}

/** Renews the claim (and the progress shown); false when the scan is no longer this instance's (cancelled). */
export async function renewLease(db: Executor, id: string, instanceId: string, leaseS: number, pagesScanned?: number): Promise<boolean> {
  const result = await db
    .updateTable('scans')
    .set({ lease_until: leaseEnd(leaseS), ...(pagesScanned !== undefined && { pages_scanned: pagesScanned, updated_at: new Date() }) })
    .where('id', '=', id)
    .where('status', '=', 'in_progress')
    .where('locked_by', '=', instanceId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface ScanOutcome {
  status: 'completed' | 'failed';
  pages_scanned?: number;
  storage_items_found?: number;
  new_storage_items?: number;
  report?: string | null;
  error?: string | null;
}

/** Ends a scan this instance still holds; false when it was cancelled meanwhile. */
export async function finishScan(db: Executor, id: string, instanceId: string, outcome: ScanOutcome): Promise<boolean> {
  const result = await db
    .updateTable('scans')
    .set({ ...outcome, finished_at: new Date(), locked_by: null, lease_until: null, updated_at: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'in_progress')
    .where('locked_by', '=', instanceId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Gives a scan back to the queue on a graceful stop; the interrupted try does not count. */
export async function releaseScan(db: Executor, id: string, instanceId: string): Promise<void> {
  await db
    .updateTable('scans')
    .set({ status: 'queued', locked_by: null, lease_until: null, pages_scanned: 0, attempts: sql`greatest(attempts - 1, 0)`, updated_at: new Date() })
    .where('id', '=', id)
    .where('status', '=', 'in_progress')
    .where('locked_by', '=', instanceId)
    .execute();
}

/**
 * Scans whose instance died: those whose lease ran out (or, with `all`, every running one: the
 * embedded database has one process, so a running scan it finds at start is an orphan). Each is
 * queued again, or failed once it was tried `maxAttempts` times.
 */
export async function recoverAbandonedScans(db: Executor, options: { all: boolean; maxAttempts: number; reason: string }) {
  return db
    .updateTable('scans')
    .set({
      status: sql`case when attempts >= ${options.maxAttempts} then 'failed' else 'queued' end`,
      error: sql`case when attempts >= ${options.maxAttempts} then ${options.reason} else null end`,
      finished_at: sql`case when attempts >= ${options.maxAttempts} then now() else null end`,
      pages_scanned: sql`case when attempts >= ${options.maxAttempts} then pages_scanned else 0 end`,
      locked_by: null,
      lease_until: null,
      updated_at: new Date(),
    })
    .where('status', '=', 'in_progress')
    .$if(!options.all, (query) => query.where('lease_until', '<', sql<Date>`now()`))
    .returning(['id', 'status'])
    .execute();
}

/** The account's last completed scan other than this one (what a scan is compared with). */
export async function findPreviousCompletedScan(db: Executor, accountId: string, exceptId: string): Promise<ScanRow | undefined> {
  return db.selectFrom('scans').selectAll().where('account_id', '=', accountId).where('status', '=', 'completed').where('id', '!=', exceptId)
    .where('report', 'is not', null).orderBy('finished_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}
