import type { Kysely } from 'kysely';
import { newId } from '../../db/ids.ts';
import type { Database, SameSite, StorageItemRow, StorageType } from '../../db/schema.ts';
import { accountLanguage, markVendorsSetup } from '../accounts/accounts.service.ts';
import { firstRequiredCategory } from '../categories/categories.service.ts';
import { takeForAi } from './storage-items.service.ts';
import {
  insertStorageItem,
  listItemCategories,
  listScanCandidates,
  markItemsSeen,
  updateStorageItem,
  type StorageItemChanges,
} from './storage-items.repository.ts';
import { lockAccountItems, wildcardFor } from './wildcards.ts';
import { ownStorageDescription } from './own-storage.ts';
import { enqueueEvent } from '../webhooks/webhooks.service.ts';

/** A cookie or storage key as a scan saw it. */
export interface ScannedItem {
  name: string;
  domain: string;
  storage_type: StorageType;
  duration: string;
  path: string;
  same_site: SameSite | null;
  partitioned: boolean;
  /** The script or response the browser saw write it, for the AI; null when it did not tell. */
  set_by: string | null;
}

export interface RecordedScan {
  /** The storage item each scanned item is now, in the same order (a wildcard when one covers it). */
  itemIds: string[];
  /** Items the scan created, for the AI once the transaction has committed. */
  created: StorageItemRow[];
}

/** A page's URL can be long; what the AI reads of it is its host. */
const MAX_SET_BY = 2048;

const bareDomain = (domain: string) => domain.trim().replace(/^\./, '').toLowerCase();

function globMatches(pattern: string, name: string): boolean {
  const source = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${source}$`, 's').test(name);
}

/**
 * The item of the account a scanned item is: the same name, storage type and domain; else one of
 * that name and type whose domain nobody filled in; else the most specific wildcard that matches
 * it (with the same domain or none).
 */
function matchOf(candidates: StorageItemRow[], found: ScannedItem): StorageItemRow | undefined {
  const domain = bareDomain(found.domain);
  const concrete = candidates.filter((c) => !c.is_wildcard_cookie && c.storage_type === found.storage_type && c.name === found.name);
  const exact = concrete.find((c) => bareDomain(c.domain) === domain) ?? concrete.find((c) => c.domain.trim() === '');
  if (exact) return exact;
  return candidates
    .filter((c) => c.is_wildcard_cookie && c.storage_type === found.storage_type && (c.domain.trim() === '' || bareDomain(c.domain) === domain))
    .filter((c) => globMatches(c.name, found.name))
    .sort((a, b) => b.name.replace(/\*/g, '').length - a.name.replace(/\*/g, '').length)[0];
}

/**
 * What a scan found, written into the account in one transaction: every item it saw again gets
 * `last_seen_at` (and, on an item a scan made or a field left empty, the domain and duration the
 * browser showed: a person's words are never replaced); every new one is created `draft` by
 * `scan` and, like one written through the API, handed to the AI when the account lets it work.
 * The banner's own cookie and storage (own-storage.ts) are described in the account's language and
 * put in its required category (when it has one): they are no unknowns.
 */
export async function recordScannedItems(db: Kysely<Database>, accountId: string, found: ScannedItem[], seenAt: Date): Promise<RecordedScan> {
  return db.transaction().execute(async (trx) => {
    await lockAccountItems(trx, accountId);
    let account: { language: string; category_id: string | null } | undefined;
    const ownItem = async (item: ScannedItem) => {
      if (ownStorageDescription(accountId, item, 'en') === undefined) return undefined;
      account ??= { language: await accountLanguage(trx, accountId), category_id: (await firstRequiredCategory(trx, accountId))?.id ?? null };
      const description = ownStorageDescription(accountId, item, account.language);
      return description === undefined ? undefined : { description, category_id: account.category_id };
    };
    const candidates = await listScanCandidates(trx, accountId, [...new Set(found.map((item) => item.name))]);
    const itemIds: string[] = [];
    const created: StorageItemRow[] = [];
    const seen = new Set<string>();
    for (const item of found) {
      const setBy = item.set_by?.slice(0, MAX_SET_BY) ?? null;
      const match = matchOf(candidates, item);
      if (!match) {
        const id = newId();
        const row = await insertStorageItem(trx, {
          ...(await ownItem(item)),
          id,
          account_id: accountId,
          name: item.name,
          domain: item.domain,
          duration: item.duration,
          path: item.path,
          same_site: item.same_site,
          partitioned: item.partitioned,
          storage_type: item.storage_type,
          status: 'draft',
          is_wildcard_cookie: false,
          wildcard_cookie_id: await wildcardFor(trx, accountId, item.storage_type, item.name, id),
          created_by: 'scan',
          last_seen_at: seenAt,
          set_by: setBy,
        });
        candidates.push(row);
        created.push(await takeForAi(trx, row));
        itemIds.push(row.id);
        continue;
      }
      itemIds.push(match.id);
      if (match.is_wildcard_cookie) {
        seen.add(match.id);
        continue;
      }
      const changes: StorageItemChanges = {};
      const byScan = match.created_by === 'scan';
      if (match.domain.trim() === '') changes.domain = item.domain;
      if ((byScan || match.duration.trim() === '') && match.duration !== item.duration) changes.duration = item.duration;
      if (byScan && match.same_site !== item.same_site) changes.same_site = item.same_site;
      if (byScan && match.partitioned !== item.partitioned) changes.partitioned = item.partitioned;
      if (byScan && match.set_by === null && setBy) changes.set_by = setBy;
      const ownWords = await ownItem(item);
      if (ownWords && match.description.trim() === '') changes.description = ownWords.description;
      if (ownWords && byScan && match.category_id === null && ownWords.category_id) changes.category_id = ownWords.category_id;
      if (Object.keys(changes).length === 0) {
        seen.add(match.id);
        continue;
      }
      const updated = await updateStorageItem(trx, accountId, match.id, { ...changes, last_seen_at: seenAt });
      if (updated) candidates[candidates.indexOf(match)] = updated;
    }
    await markItemsSeen(trx, accountId, [...seen], seenAt);
    for (const row of created) {
      await enqueueEvent(trx, accountId, 'storage_item.discovered', {
        id: row.id, name: row.name, domain: row.domain, storage_type: row.storage_type, duration: row.duration,
        category_id: row.category_id, status: row.status, set_by: row.set_by, created_at: row.created_at.toISOString(),
      });
    }
    if (created.length > 0) await markVendorsSetup(trx, accountId);
    return { itemIds, created };
  });
}

/** What a report reads of an item's category, as it is now. */
export type ItemCategory = { category_id: string; category: string; required: boolean } | null;

/**
 * For reports: the category of each item still in the account, by item id (null when it has none);
 * an id missing from the map is an item no longer in the account.
 */
export async function itemCategoriesOf(db: Kysely<Database>, accountId: string, itemIds: string[]): Promise<Map<string, ItemCategory>> {
  const rows = await listItemCategories(db, accountId, [...new Set(itemIds)]);
  return new Map(rows.map((row) => [
    row.item_id,
    row.category_id === null ? null : { category_id: row.category_id, category: row.category!, required: row.required! },
  ]));
}
