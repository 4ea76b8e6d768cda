/**
 * The IAB TCF module (issue 47), as other modules use it: the account's TCF settings checked and
 * merged, what the banner script is given of them, and the Global Vendor List in force with the
 * part of it one account's banner fetches.
 */
export { bannerTcf, mergeTcfChanges, tcfSettingsOf, type TcfSettings, type VendorListFacts } from './tcf-settings.ts';
export { VendorLists, type LoadedVendorList } from './vendor-lists.ts';
export { translationFor, vendorListSubset } from './vendor-list.ts';

import type { LoadedVendorList as Loaded } from './vendor-lists.ts';

/** The list in force as `GET /tcf/vendor-list` answers it: its version and its vendors by id. */
export function vendorListSummary(gvl: Loaded | undefined) {
  if (!gvl) return null;
  const vendors = Object.values(gvl.list.vendors).filter((vendor) => !vendor.deletedDate)
    .map((vendor) => ({ id: vendor.id, name: vendor.name })).sort((a, b) => a.id - b.id);
  return {
    version: gvl.version,
    tcf_policy_version: gvl.tcfPolicyVersion,
    last_updated: gvl.list.lastUpdated,
    fetched_at: gvl.fetchedAt.toISOString(),
    languages: Object.keys(gvl.translations).sort(),
    vendors,
  };
}
