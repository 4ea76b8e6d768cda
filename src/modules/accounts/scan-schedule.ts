import { sql } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import type { ScanSchedule } from '../../db/schema.ts';

/**
 * Scheduled rescans: an account whose `scan_schedule` is on gets a scan every 7 (`weekly`) or 30
 * (`monthly`) days, the first one a whole period after the schedule was turned on.
 */
export const SCAN_SCHEDULES = ['off', 'weekly', 'monthly'] as const;

const period = (schedule: ScanSchedule) => sql`case ${schedule} when 'weekly' then interval '7 days' else interval '30 days' end`;

/** The columns a schedule change writes; the same schedule again keeps its date. */
export function scheduleChange(schedule: ScanSchedule) {
  return {
    scan_schedule: schedule,
    next_scan_at: schedule === 'off'
      ? null
      : sql<Date>`case when scan_schedule = ${schedule} and next_scan_at is not null then next_scan_at else now() + ${period(schedule)} end`,
  };
}

/**
 * The accounts whose rescan is due, their next date moved a period on in the same statement:
 * each due date is taken once, by one instance (SKIP LOCKED), even with several running.
 */
export async function takeDueScanSchedules(db: Executor, limit: number): Promise<Array<{ id: string; domain: string }>> {
  const due = db
    .selectFrom('accounts')
    .select('id')
    .where('scan_schedule', '<>', 'off')
    .where('next_scan_at', '<=', sql<Date>`now()`)
    .orderBy('next_scan_at')
    .limit(limit)
    .forUpdate()
    .skipLocked();
  return db
    .updateTable('accounts')
    .set({ next_scan_at: sql`now() + case scan_schedule when 'weekly' then interval '7 days' else interval '30 days' end` })
    .where('id', 'in', due)
    .returning(['id', 'domain'])
    .execute();
}

/** The hosts an account's scans may start on: its domain and allowed domains. */
export async function findScanHosts(db: Executor, accountId: string): Promise<{ domain: string; allowed_domains: string[] } | undefined> {
  return db.selectFrom('accounts').select(['domain', 'allowed_domains']).where('id', '=', accountId).executeTakeFirst();
}
