import type { Kysely } from 'kysely';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import type { Config } from '../../config.ts';
import { isId, newId } from '../../db/ids.ts';
import { isUniqueViolation, toJson } from '../../db/kysely.ts';
import type { Database, ScanRow } from '../../db/schema.ts';
import { found, ValidationError } from '../../http/app-errors.ts';
import { addressPolicy, resolveAllowed, RefusedAddressError, UnresolvedHostError } from '../../scanner/address-guard.ts';
import { normaliseDomain, originMatches } from '../../lib/hosts.ts';
import { DAY_MS } from '../../lib/utc-period.ts';
import { findScanAccount } from '../accounts/accounts.service.ts';
import { itemCategoriesOf } from '../storage-items/scanned-items.service.ts';
import { listUnseenItems, removeUnseenItems } from '../storage-items/storage-items.service.ts';
import { cancelScan, countActiveScansOf, countScansSince, findActiveScan, findScan, insertScan, lockOwnerScans } from './scans.repository.ts';
import type { Findings, ScanFields, StoredReport } from './scans.schema.ts';

export const ALREADY_SCANNING = 'Account already has a scan queued or running';
/** What an owner refused a private address is told: the setting that lifts it is the operator's, and named. */
const PRIVATE_NETWORKS_HINT = 'an operator can allow private networks with SCAN_ALLOW_PRIVATE_NETWORKS=true';

/** Whether a host is the account's domain, one of its subdomains, or one of its allowed domains. */
export function hostBelongs(host: string, account: { domain: string; allowed_domains: string[] }): boolean {
  const domain = account.domain.replace(/^\*\./, '');
  return originMatches(host, domain) || originMatches(host, `*.${domain}`) || account.allowed_domains.some((d) => originMatches(host, d));
}

/**
 * Queues a scan after the checks: an http(s) URL of the account's sites, whose host is public
 * (unless the operator allows private networks), no other scan queued or running, the daily limit
 * not reached, and fewer than `SCANS_PER_OWNER_MAX` queued or running for the account's owner (the
 * user or partner behind it; counted under a lock, so that simultaneous requests cannot pass it).
 * A scheduled rescan is checked only for its URL: refused, it would wait a whole period, and it
 * counts towards the owner's scans all the same.
 */
export async function queueScan(db: Kysely<Database>, config: Config, accountId: string, fields: ScanFields, scheduled = false): Promise<ScanRow> {
  const account = found(await findScanAccount(db, accountId));
  let url: URL | undefined;
  try {
    url = new URL(fields.starting_url.trim());
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    throw new ValidationError('Starting url is invalid');
  }
  const host = normaliseDomain(url.hostname.replace(/^\[|\]$/g, ''));
  if (!host || !hostBelongs(host, account)) {
    throw new ValidationError("Starting url must be on the account's domain or allowed domains");
  }
  if (!scheduled) {
    if (await findActiveScan(db, accountId)) throw new ValidationError(ALREADY_SCANNING);
    const today = await countScansSince(db, accountId, new Date(Date.now() - DAY_MS));
    if (today >= config.scanDailyLimit) throw new ValidationError(`Account has reached its limit of ${config.scanDailyLimit} scans a day`);
  }
  try {
    await resolveAllowed(url.hostname, addressPolicy(config.scanAllowPrivateNetworks));
  } catch (error) {
    if (error instanceof RefusedAddressError) throw new ValidationError(`Starting url is not allowed: ${error.message}; ${PRIVATE_NETWORKS_HINT}`);
    if (error instanceof UnresolvedHostError) throw new ValidationError(`Starting url is not allowed: ${error.message}`);
    throw error;
  }
  url.hash = '';
  const owner = account.scan_owner_id;
  try {
    return await db.transaction().execute(async (trx) => {
      if (!scheduled) {
        await lockOwnerScans(trx, owner);
        const cap = config.scansPerOwnerMax;
        if ((await countActiveScansOf(trx, owner)) >= cap) {
          throw new ValidationError(`Scans are limited to ${cap} queued or running at once per user or partner; wait for one to finish`);
        }
      }
      const scan = await insertScan(trx, {
        id: newId(),
        account_id: accountId,
        owner_id: owner,
        scheduled,
        starting_url: url.href,
        max_pages: fields.max_pages ?? 50,
        crawl_subdomains: fields.crawl_subdomains ?? false,
      });
      await recordAudit(trx, { accountId, resourceType: 'scan', resourceId: scan.id, action: 'start', after: scan });
      return scan;
    });
  } catch (error) {
    // Another request queued one between the check and the insert.
    if (isUniqueViolation(error)) throw new ValidationError(ALREADY_SCANNING);
    throw error;
  }
}

export async function cancelQueuedOrRunning(db: Kysely<Database>, accountId: string, id: string): Promise<ScanRow> {
  const cancelled = await db.transaction().execute(async (trx) => {
    const row = await cancelScan(trx, accountId, id);
    if (row) await recordAudit(trx, { accountId, resourceType: 'scan', resourceId: id, action: 'cancel', after: { status: row.status } });
    return row;
  });
  if (cancelled) return cancelled;
  const scan = found(await findScan(db, accountId, id));
  throw new ValidationError(`Scan has already ${scan.status === 'cancelled' ? 'been cancelled' : 'finished'}`);
}

/**
 * What each scan's report found before consent, read from the account's items as they are now (so
 * that a category given later, by a person or the AI, counts): the items without a category (or no
 * longer in the account), which nothing holds back, and the items of a category that is not required.
 */
export async function findingsOf(db: Kysely<Database>, accountId: string, rows: ScanRow[]): Promise<Map<string, Findings>> {
  const reports = rows.map((row) => [row.id, row.report as StoredReport | null] as const);
  const itemIds = reports.flatMap(([, report]) =>
    (report?.storage_items ?? []).filter((item) => item.set_before_consent && item.storage_item_id).map((item) => item.storage_item_id!),
  );
  const categories = await itemCategoriesOf(db, accountId, itemIds);
  const out = new Map<string, Findings>();
  for (const [id, report] of reports) {
    const findings: Findings = { uncategorised: [], violations: [] };
    for (const item of report?.storage_items ?? []) {
      if (!item.set_before_consent) continue;
      const found = { name: item.name, domain: item.domain, storage_type: item.storage_type };
      const category = item.storage_item_id ? categories.get(item.storage_item_id) : undefined;
      if (!category) {
        findings.uncategorised.push({ ...found, storage_item_id: item.storage_item_id, first_seen_url: item.first_seen_url });
      } else if (!category.required) {
        findings.violations.push({
          ...found, storage_item_id: item.storage_item_id!, category_id: category.category_id, category: category.category, first_seen_url: item.first_seen_url,
        });
      }
    }
    out.set(id, findings);
  }
  return out;
}

/** When a scan's word on what the site sets can remove items: it completed and found some. */
function trusted(scan: ScanRow): Date | undefined {
  const report = scan.report as StoredReport | null;
  return scan.status === 'completed' && scan.started_at && report && report.storage_items.length > 0 ? scan.started_at : undefined;
}

/** The account's items a completed scan did not find, nor any later one (none for another scan). */
export async function unseenItemsOf(db: Kysely<Database>, accountId: string, scan: ScanRow): Promise<Findings['unseen_items']> {
  const since = trusted(scan);
  if (!since) return undefined;
  const rows = await listUnseenItems(db, accountId, since);
  return rows.map((row) => ({ storage_item_id: row.id, name: row.name, domain: row.domain, storage_type: row.storage_type, created_by: row.created_by }));
}

/**
 * Removes those of `ids` that the scan did not find, nor any later one: what the owner chose from
 * the report's `unseen_items`. A scan that did not complete, or found nothing, removes nothing.
 */
export async function removeUnseen(db: Kysely<Database>, accountId: string, id: string, ids: string[]): Promise<string[]> {
  const scan = found(await findScan(db, accountId, id));
  const since = trusted(scan);
  if (!since) throw new ValidationError('Scan must have completed and found storage items before anything is removed on its word');
  const removed = await removeUnseenItems(db, accountId, since, [...new Set(ids.filter(isId).map((value) => value.toLowerCase()))]);
  return removed.map((row) => row.id);
}

export const reportJson = (report: StoredReport): string => toJson(report);
