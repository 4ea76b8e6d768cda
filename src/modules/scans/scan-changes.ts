import type { ScanChanges, StoredReport } from './scans.schema.ts';

type Named = { name: string; domain: string; storage_type: 'cookie' | 'local_storage' | 'session_storage' };

/** An item's identity between two scans: where it is stored, its domain and its name. */
export const itemKey = (item: Named): string => `${item.storage_type}\u0000${item.domain.replace(/^\./, '').toLowerCase()}\u0000${item.name}`;

const named = ({ name, domain, storage_type }: Named): Named => ({ name, domain, storage_type });

/** Each item once, by its key. */
function byKey(items: Named[]): Map<string, Named> {
  const map = new Map<string, Named>();
  for (const item of items) if (!map.has(itemKey(item))) map.set(itemKey(item), named(item));
  return map;
}

/** What a scan found that the previous one did not, and what the previous one found that it did not. */
export function scanChanges(previousScanId: string, previous: StoredReport, current: Named[]): ScanChanges {
  const before = byKey(previous.storage_items);
  const now = byKey(current);
  return {
    previous_scan_id: previousScanId,
    new_items: [...now].filter(([key]) => !before.has(key)).map(([, item]) => item),
    gone_items: [...before].filter(([key]) => !now.has(key)).map(([, item]) => item),
  };
}
