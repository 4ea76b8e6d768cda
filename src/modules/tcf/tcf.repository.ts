import { sql } from 'kysely';
import { toJson, type Executor } from '../../db/kysely.ts';
import type { Declarations, VendorListJson } from './vendor-list.ts';

/** The Global Vendor List's rows are the same for every tenant: no account filter applies. */

export interface StoredVendorList {
  version: number;
  tcf_policy_version: number;
  vendor_list: VendorListJson;
  translations: Record<string, Declarations>;
  fetched_at: Date;
  updated_at: Date;
}

/**
 * Stores a version, or merges translations into the stored one; the same version with the same
 * translations writes nothing. Answers whether a row was written.
 */
export async function storeVendorList(db: Executor, list: VendorListJson, translations: Record<string, Declarations>): Promise<boolean> {
  const result = await db
    .insertInto('tcf_vendor_lists')
    .values({
      version: list.vendorListVersion,
      tcf_policy_version: list.tcfPolicyVersion,
      last_updated: new Date(list.lastUpdated),
      vendor_list: toJson(list),
      translations: toJson(translations),
    })
    .onConflict((oc) => oc.column('version').doUpdateSet({
      translations: sql`tcf_vendor_lists.translations || excluded.translations`,
      updated_at: sql`now()`,
    }).where(sql<boolean>`not (tcf_vendor_lists.translations @> excluded.translations)`))
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The version in force (the highest stored) and when it last changed, or undefined when none is stored. */
export async function latestVersion(db: Executor): Promise<{ version: number; updated_at: Date } | undefined> {
  return db.selectFrom('tcf_vendor_lists').select(['version', 'updated_at']).orderBy('version', 'desc').limit(1).executeTakeFirst();
}

export async function findVendorList(db: Executor, version: number): Promise<StoredVendorList | undefined> {
  const row = await db
    .selectFrom('tcf_vendor_lists')
    .select(['version', 'tcf_policy_version', 'vendor_list', 'translations', 'fetched_at', 'updated_at'])
    .where('version', '=', version)
    .executeTakeFirst();
  return row && { ...row, vendor_list: row.vendor_list as unknown as VendorListJson, translations: row.translations as Record<string, Declarations> };
}
