/**
 * The IAB's Global Vendor List, version 3 of its format (`vendor-list.json`) and its translations
 * (`purposes-xx.json`): checked when loaded (a file or an answer from the network is hostile input),
 * and cut down to one account's vendors for its banner. Pure: no database, no network.
 */

/** What the GVL declares besides its vendors: the translation files hold these alone. */
export const DECLARATION_KEYS = ['purposes', 'specialPurposes', 'features', 'specialFeatures', 'stacks', 'dataCategories'] as const;
export type DeclarationKey = (typeof DECLARATION_KEYS)[number];
export type Declarations = Partial<Record<DeclarationKey, Record<string, unknown>>>;

/** A vendor as the GVL lists it; only what the service reads is typed, the rest passes through. */
export interface GvlVendor {
  id: number;
  name: string;
  purposes: number[];
  legIntPurposes: number[];
  flexiblePurposes: number[];
  specialPurposes: number[];
  features: number[];
  specialFeatures: number[];
  deletedDate?: string;
  [key: string]: unknown;
}

/** `vendor-list.json`, checked. */
export interface VendorListJson extends Declarations {
  gvlSpecificationVersion: number;
  vendorListVersion: number;
  tcfPolicyVersion: number;
  lastUpdated: string;
  vendors: Record<string, GvlVendor>;
  [key: string]: unknown;
}

export class VendorListError extends Error {}

/** The largest GVL file read from a file or the network (the IAB's is about 1 MB in late 2026). */
export const MAX_GVL_BYTES = 32 * 1024 * 1024;
/** The TCF's vendor ids are 16 bits. */
export const MAX_VENDOR_ID = 65535;
/** Purposes 1–11, special purposes 1–3, features 1–3, special features 1–2 (TCF 2.2 and 2.3). */
export const PURPOSE_COUNT = 11;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
const idList = (value: unknown, max: number) =>
  Array.isArray(value) && value.length <= 1000 && value.every((id) => Number.isInteger(id) && id >= 1 && id <= max);

/** A declarations map (`purposes`, `stacks`, …): an object whose items each have a numeric id and a name. */
function checkDeclarationMap(key: string, value: unknown): Record<string, unknown> {
  if (!isObject(value)) throw new VendorListError(`${key} must be an object`);
  for (const [id, item] of Object.entries(value)) {
    if (!isObject(item) || String(item.id) !== id || typeof item.name !== 'string') {
      throw new VendorListError(`${key}.${id.slice(0, 20)} must have the id ${id.slice(0, 20)} and a name`);
    }
  }
  return value;
}

/** The declarations of a `purposes-xx.json` (or of the vendor list itself), each map checked. */
export function parseDeclarations(json: unknown): Declarations {
  if (!isObject(json)) throw new VendorListError('a translation file must be a JSON object');
  const out: Declarations = {};
  for (const key of DECLARATION_KEYS) {
    if (json[key] !== undefined) out[key] = checkDeclarationMap(key, json[key]);
  }
  if (!out.purposes) throw new VendorListError('a translation file must declare purposes');
  return out;
}

function checkVendor(id: string, vendor: unknown): GvlVendor {
  const where = `vendors.${id.slice(0, 20)}`;
  if (!isObject(vendor) || String(vendor.id) !== id || !Number.isInteger(vendor.id) || (vendor.id as number) < 1 || (vendor.id as number) > MAX_VENDOR_ID) {
    throw new VendorListError(`${where} must have the id ${id.slice(0, 20)} (1 to ${MAX_VENDOR_ID})`);
  }
  if (typeof vendor.name !== 'string') throw new VendorListError(`${where} must have a name`);
  for (const key of ['purposes', 'legIntPurposes', 'flexiblePurposes', 'specialPurposes', 'features', 'specialFeatures']) {
    // Absent lists are empty (a vendor with no special feature may leave the key out).
    vendor[key] ??= [];
    if (!idList(vendor[key], 64)) throw new VendorListError(`${where}.${key} must be a list of ids`);
  }
  return vendor as GvlVendor;
}

/** `vendor-list.json`, parsed; throws VendorListError naming what is wrong. */
export function parseVendorList(json: unknown): VendorListJson {
  if (!isObject(json)) throw new VendorListError('the vendor list must be a JSON object');
  const { vendorListVersion, tcfPolicyVersion, gvlSpecificationVersion, lastUpdated, vendors } = json;
  if (!isCount(vendorListVersion) || vendorListVersion < 1 || vendorListVersion > 4095) {
    throw new VendorListError('vendorListVersion must be an integer from 1 to 4095');
  }
  if (!isCount(tcfPolicyVersion) || tcfPolicyVersion > 63) throw new VendorListError('tcfPolicyVersion must be an integer from 0 to 63');
  if (gvlSpecificationVersion !== 3) throw new VendorListError('gvlSpecificationVersion must be 3 (the GVL v3 format of TCF 2.2 and 2.3)');
  if (typeof lastUpdated !== 'string' || Number.isNaN(Date.parse(lastUpdated))) throw new VendorListError('lastUpdated must be a date');
  if (!isObject(vendors)) throw new VendorListError('vendors must be an object');
  for (const [id, vendor] of Object.entries(vendors)) vendors[id] = checkVendor(id, vendor);
  parseDeclarations(json);
  return json as VendorListJson;
}

/** Vendors the list still carries: the GVL keeps deleted vendors, with their `deletedDate`. */
export function activeVendorIds(list: Pick<VendorListJson, 'vendors'>): Set<number> {
  const ids = new Set<number>();
  for (const vendor of Object.values(list.vendors)) if (!vendor.deletedDate) ids.add(vendor.id);
  return ids;
}

/**
 * The loaded translation to use for the language `wanted`: its own (`pt-pt`), else its primary
 * language's (`de-AT` → `de`); undefined: English, the vendor list's own words.
 */
export function translationFor(available: Iterable<string>, wanted: string | undefined): string | undefined {
  if (!wanted) return undefined;
  const codes = new Set(available);
  const lower = wanted.toLowerCase();
  if (lower === 'en' || lower.startsWith('en-')) return undefined;
  if (codes.has(lower)) return lower;
  const primary = lower.split('-')[0];
  return codes.has(primary) ? primary : undefined;
}

/**
 * The GVL as one account's banner gets it (`GET /widget/{id}/tcf-vendors.json`): the account's
 * vendors only (deleted ones dropped), every declaration in `translation` where given (English
 * otherwise), in the GVL v3 shape that `new GVL(json)` of `@iabtechlabtcf/core` takes as it is.
 */
export function vendorListSubset(list: VendorListJson, vendorIds: readonly number[], translation?: Declarations): VendorListJson {
  const vendors: Record<string, GvlVendor> = {};
  for (const id of vendorIds) {
    const vendor = list.vendors[String(id)];
    if (vendor && !vendor.deletedDate) vendors[String(id)] = vendor;
  }
  const declarations: Declarations = {};
  for (const key of DECLARATION_KEYS) {
    const english = list[key];
    if (english === undefined) continue;
    const translated = translation?.[key];
    // An item the translation leaves out stays English; the stacks keep their purposes from the list.
    declarations[key] = translated
      ? Object.fromEntries(Object.entries(english).map(([id, item]) => [id, { ...(item as object), ...pickTexts(translated[id]) }]))
      : english;
  }
  return {
    gvlSpecificationVersion: list.gvlSpecificationVersion,
    vendorListVersion: list.vendorListVersion,
    tcfPolicyVersion: list.tcfPolicyVersion,
    lastUpdated: list.lastUpdated,
    ...declarations,
    vendors,
  };
}

/** The words of a translated item: its name, description, legal description and illustrations. */
function pickTexts(item: unknown): Record<string, unknown> {
  if (!isObject(item)) return {};
  const out: Record<string, unknown> = {};
  for (const key of ['name', 'description', 'descriptionLegal', 'illustrations']) if (item[key] !== undefined) out[key] = item[key];
  return out;
}
