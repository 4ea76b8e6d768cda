import { Type, type Static } from 'typebox';
import type { ScanRow } from '../../db/schema.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum, Text, Timestamp } from '../../http/schemas.ts';

export const SCAN_STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
export const SCAN_SCHEDULES = ['off', 'weekly', 'monthly'] as const;
const StorageType = StringEnum(['cookie', 'local_storage', 'session_storage'] as const);
/** What names an item a scan meets: its name, the domain it belongs to, where it is stored. */
const ItemNamed = { name: Type.String(), domain: Type.String(), storage_type: StorageType };

const PageVisitSchema = Type.Object({
  url: Type.String(),
  status: Nullable(Type.Integer({ description: 'HTTP status of the page; null when it did not load' })),
  time_ms: Type.Integer(),
  pass: StringEnum(['before_consent', 'after_consent'] as const, { description: 'Before any consent, or after "Accept all" in the site\'s banner' }),
  error: Nullable(Type.String()),
});

const FoundItemSchema = Type.Object({
  ...ItemNamed,
  storage_item_id: Nullable(Type.String({ description: 'The storage item of the account it is (a wildcard when one covers it)' })),
  first_seen_url: Type.String(),
  expires_at: Nullable(Type.String({ description: 'Cookies: when it expires; null for session cookies and storage keys' })),
  duration: Type.String(),
  path: Type.String(),
  secure: Type.Boolean(),
  http_only: Type.Boolean(),
  same_site: Nullable(StringEnum(['Lax', 'Strict', 'None'] as const)),
  partitioned: Type.Boolean(),
  set_before_consent: Type.Boolean({ description: 'Set before the visitor consented to anything' }),
  set_by: Nullable(Type.String({ description: 'The script, page or frame that set it, when the browser tells' })),
});

const ViolationSchema = Type.Object({
  ...ItemNamed,
  storage_item_id: Type.String(),
  category_id: Type.String(),
  category: Type.String({ description: 'Name of the category, which visitors may refuse' }),
  first_seen_url: Type.String(),
}, { description: 'An item of a category that is not required, set before consent' });

const UncategorisedSchema = Type.Object({
  ...ItemNamed,
  storage_item_id: Nullable(Type.String({ description: 'The storage item it was recorded as, even when that item is no longer in the account' })),
  first_seen_url: Type.String(),
}, { description: 'An item set before consent that has no category, or is no longer in the account: nothing holds it back until the visitor chooses' });

const UnseenItemSchema = Type.Object({
  storage_item_id: Type.String(),
  ...ItemNamed,
  created_by: StringEnum(['user', 'api', 'scan'] as const),
}, { description: 'An item of the account made before the scan started that neither it nor a later scan saw' });

const SummarySchema = Type.Object({
  set_before_consent: Type.Integer({ description: 'Items set before the visitor chose, whatever their category' }),
  uncategorised: Type.Integer({ description: 'Of those, the items without a category (`uncategorised`)' }),
  violations: Type.Integer({ description: 'Of those, the items of a category visitors may refuse (`violations`)' }),
  passed: Type.Boolean({ description: 'true only when both `uncategorised` and `violations` are 0: an uncategorised item set before consent is a failure, not a pass' }),
}, { description: 'The counts a list of scans shows, read from the categories the items have now' });

export const ScanReportSchema = Type.Object({
  pages: Type.Array(PageVisitSchema),
  storage_items: Type.Array(FoundItemSchema),
  summary: SummarySchema,
  uncategorised: Type.Array(UncategorisedSchema, { description: 'Read from the items as they are now; the first thing to fix: shown before `violations`' }),
  violations: Type.Array(ViolationSchema, { description: 'Read from the categories the items have now' }),
  unseen_items: Type.Optional(Type.Array(UnseenItemSchema, {
    description: 'Only in `GET /scans/{id}` of a completed scan: the account\'s items this scan did not find, nor any later one '
      + '(an example catalogue such as the demo\'s, a cookie the site no longer sets, or one on pages the scan did not reach). '
      + '`POST /scans/{id}/remove-unseen-items` removes those chosen',
  })),
  changes: Type.Optional(Type.Object({
    previous_scan_id: Type.String({ description: 'The completed scan of the account before this one, compared with' }),
    new_items: Type.Array(Type.Object(ItemNamed), { description: 'Found by this scan and not by the previous one' }),
    gone_items: Type.Array(Type.Object(ItemNamed), { description: 'Found by the previous scan and not by this one' }),
  }, { description: 'What changed since the previous completed scan (absent on the first scan and on scans made before this was kept)' })),
  refused: Type.Array(Type.Object({ url: Type.String(), reason: Type.String() }), {
    description: 'Requests the scan refused to make: private, loopback, link-local or metadata addresses',
  }),
  consent_banner: Type.Boolean({ description: 'The site runs its Consentry banner; the second pass accepted everything through it' }),
});
export type ScanReport = Static<typeof ScanReportSchema>;
export type StoredReport = Omit<ScanReport, 'summary' | 'uncategorised' | 'violations' | 'unseen_items'>;
export type Violation = ScanReport['violations'][number];
export type ScanChanges = NonNullable<ScanReport['changes']>;
export type Uncategorised = ScanReport['uncategorised'][number];
/** What a report reads from the account's items as they are now. */
export interface Findings {
  uncategorised: Uncategorised[];
  violations: Violation[];
  unseen_items?: ScanReport['unseen_items'];
}

export const ScanSchema = Type.Object({
  id: Type.String(),
  status: StringEnum(SCAN_STATUSES),
  scheduled: Type.Boolean({ description: 'Queued by the account\'s scan_schedule rather than by a request' }),
  starting_url: Type.String(),
  max_pages: Type.Integer(),
  crawl_subdomains: Type.Boolean(),
  pages_scanned: Type.Integer(),
  storage_items_found: Type.Integer(),
  new_storage_items: Type.Integer(),
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  error: Nullable(Type.String()),
  report: Nullable(ScanReportSchema),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Scan = Static<typeof ScanSchema>;

export const CreateScanBody = Type.Object({
  scan: Type.Object({
    starting_url: Text(2048, { description: 'An http(s) page of the account\'s domain or allowed domains' }),
    max_pages: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    crawl_subdomains: Type.Optional(Type.Boolean({ default: false })),
  }),
});
export type ScanFields = Static<typeof CreateScanBody>['scan'];

export const RemoveUnseenBody = Type.Object({
  storage_item_ids: Type.Array(Type.String({ maxLength: 64 }), {
    minItems: 1, maxItems: 1000, description: 'The unseen items to remove, as the report listed them; any other id is left alone',
  }),
});

export const RemovedItems = Type.Object({
  data: Type.Object({ removed: Type.Array(Type.String(), { description: 'The storage items removed' }) }),
});

export const ScanListQuery = offsetQuery(['created_at'] as const, {
  status: Type.Optional(StringEnum(SCAN_STATUSES)),
});

export function toScan(row: ScanRow, findings: Findings = { uncategorised: [], violations: [] }): Scan {
  const stored = row.report as StoredReport | null;
  return {
    id: row.id,
    status: row.status,
    scheduled: row.scheduled,
    starting_url: row.starting_url,
    max_pages: row.max_pages,
    crawl_subdomains: row.crawl_subdomains,
    pages_scanned: row.pages_scanned,
    storage_items_found: row.storage_items_found,
    new_storage_items: row.new_storage_items,
    started_at: row.started_at?.toISOString() ?? null,
    finished_at: row.finished_at?.toISOString() ?? null,
    error: row.error,
    report: stored ? { ...stored, summary: summaryOf(stored, findings), ...findings } : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function summaryOf(report: StoredReport, { uncategorised, violations }: Findings): ScanReport['summary'] {
  return {
    set_before_consent: report.storage_items.filter((item) => item.set_before_consent).length,
    uncategorised: uncategorised.length,
    violations: violations.length,
    passed: uncategorised.length === 0 && violations.length === 0,
  };
}
