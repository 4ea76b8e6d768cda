/**
 * The IAB TCF module (issue 47), as other modules use it: the account's TCF settings checked and
 * merged, what the banner script is given of them, and the Global Vendor List in force with the
 * part of it one account's banner fetches.
 */
export { bannerTcf, mergeTcfChanges, tcfSettingsOf, type TcfSettings, type VendorListFacts } from './tcf-settings.ts';
export { VendorLists, type LoadedVendorList } from './vendor-lists.ts';
export { translationFor, vendorListSubset } from './vendor-list.ts';
