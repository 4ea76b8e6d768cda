import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { Database, ScanRow } from '../../db/schema.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import { scanAlertEmail, type AlertItem } from '../../mail/scan-alert-email.ts';
import { adminsOf } from '../account-users/account-users.service.ts';
import type { Findings, ScanChanges } from './scans.schema.ts';

/** Items a webhook lists of each kind at most (the counts are whole; the report has every item). */
const LISTED = 200;

/** What a scan's alert holds: the changes since the previous scan and what is set before consent. */
export interface ScanAlert {
  changes: ScanChanges | undefined;
  beforeConsent: AlertItem[];
}

/** Items set before consent that nothing holds back: uncategorised ones and those of a category visitors may refuse. */
export const beforeConsentOf = (findings: Findings): AlertItem[] =>
  [...findings.uncategorised, ...findings.violations].map(({ name, domain, storage_type }) => ({ name, domain, storage_type }));

/** Whether there is anything to tell the admins. */
export const worthTelling = ({ changes, beforeConsent }: ScanAlert): boolean =>
  beforeConsent.length > 0 || (changes !== undefined && (changes.new_items.length > 0 || changes.gone_items.length > 0));

const listed = <T>(items: T[]) => ({ count: items.length, items: items.slice(0, LISTED) });

/** The `scan.completed` webhook's data. */
export function scanCompletedData(scan: ScanRow, outcome: { pages_scanned: number; storage_items_found: number; new_storage_items: number }, alert: ScanAlert) {
  return {
    scan_id: scan.id,
    scheduled: scan.scheduled,
    starting_url: scan.starting_url,
    ...outcome,
    previous_scan_id: alert.changes?.previous_scan_id ?? null,
    new_items: listed(alert.changes?.new_items ?? []),
    gone_items: listed(alert.changes?.gone_items ?? []),
    set_before_consent: listed(alert.beforeConsent),
  };
}

/** Emails each admin of the account what a scheduled scan found changed. */
export async function emailScanAlert(
  db: Kysely<Database>, config: Pick<Config, 'publicUrl'>, mail: (message: MailMessage) => Promise<void>, scan: ScanRow, alert: ScanAlert,
): Promise<void> {
  for (const admin of await adminsOf(db, scan.account_id)) {
    await mail(scanAlertEmail({
      to: admin.user_email, accountName: admin.account_name, startingUrl: scan.starting_url,
      newItems: alert.changes?.new_items ?? [], goneItems: alert.changes?.gone_items ?? [], beforeConsent: alert.beforeConsent,
      reportUrl: `${config.publicUrl}/accounts/${scan.account_id}/scans/${scan.id}`,
    }));
  }
}
