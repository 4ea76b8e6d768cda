/**
 * The visitor's TCF choice as the IAB's `@iabtechlabtcf/core` writes it: a TCModel over the account's
 * vendor list, encoded as a service-specific TC string (core, disclosed vendors and publisher
 * segments), kept in the first-party `euconsent-v2` cookie; Google's Additional Consent string
 * beside it (`addtl_consent`); and the test of a stored string against the list and the settings in
 * force, which decides whether the visitor is asked again.
 */

import { GVL, PurposeRestriction, TCModel, TCString } from '@iabtechlabtcf/core';
import { buildAcString } from './ac-string.ts';
import type { BannerTcf } from './config.ts';

export const TC_COOKIE = 'euconsent-v2';
export const AC_COOKIE = 'addtl_consent';

/** Purposes the TCF never lets rest on legitimate interest (1; 3 to 6 since TCF 2.2). */
const CONSENT_ONLY = [1, 3, 4, 5, 6];

/** What the visitor chose, by id. */
export interface TcfChoice {
  purposes: Set<number>;
  /** Purposes whose legitimate interest the visitor did not object to. */
  purposeLi: Set<number>;
  specialFeatures: Set<number>;
  vendors: Set<number>;
  /** Vendors whose legitimate interest the visitor did not object to. */
  vendorLi: Set<number>;
  /** Consent to Google's ad technology providers (all of the account's, or none). */
  atp: boolean;
}

const ids = (map: Record<string, unknown> | undefined) => Object.keys(map ?? {}).map(Number);

/** The purposes some vendor (or the publisher) may rest on legitimate interest for: those with a right to object. */
export function liPurposes(gvl: GVL, tcf: BannerTcf): number[] {
  const claimed = new Set<number>(tcf.legitimate_interest_purposes);
  for (const vendor of Object.values(gvl.vendors)) for (const id of vendor.legIntPurposes) claimed.add(id);
  return ids(gvl.purposes).filter((id) => claimed.has(id) && !CONSENT_ONLY.includes(id));
}

/** Vendors with a legitimate interest to object to. */
export const liVendors = (gvl: GVL) => Object.values(gvl.vendors).filter((vendor) => vendor.legIntPurposes.length > 0).map((vendor) => vendor.id);

/** Everything on ("Accept all"), or every consent off and every legitimate interest objected to ("Reject all"). */
export function allOrNothing(gvl: GVL, tcf: BannerTcf, all: boolean): TcfChoice {
  const when = (list: number[]) => new Set(all ? list : []);
  return {
    purposes: when(ids(gvl.purposes)),
    purposeLi: when(liPurposes(gvl, tcf)),
    specialFeatures: when(ids(gvl.specialFeatures)),
    vendors: when(ids(gvl.vendors)),
    vendorLi: when(liVendors(gvl)),
    atp: all,
  };
}

/** The choice a stored model holds (for the switches of a visitor who chose before). */
export function choiceOf(model: TCModel, gvl: GVL, tcf: BannerTcf, atp: boolean): TcfChoice {
  const having = (vector: { has(id: number): boolean }, list: number[]) => new Set(list.filter((id) => vector.has(id)));
  return {
    purposes: having(model.purposeConsents, ids(gvl.purposes)),
    purposeLi: having(model.purposeLegitimateInterests, liPurposes(gvl, tcf)),
    specialFeatures: having(model.specialFeatureOptins, ids(gvl.specialFeatures)),
    vendors: having(model.vendorConsents, ids(gvl.vendors)),
    vendorLi: having(model.vendorLegitimateInterests, liVendors(gvl)),
    atp,
  };
}

/** A TCF language code (`de-CH` → `DE`), English where the TCF has no such language. */
function consentLanguage(language: string): string {
  const code = language.toUpperCase().split('-')[0];
  return GVL.consentLanguages.has(code) ? code : 'EN';
}

/** The TC string of `choice`, made on `screen` (1: the first layer, 2: the second), by the IAB's encoder. */
export function encodeChoice(gvl: GVL, tcf: BannerTcf, language: string, choice: TcfChoice, screen: number): string {
  const model = new TCModel(gvl);
  model.cmpId = tcf.cmp_id;
  model.cmpVersion = tcf.cmp_version;
  model.consentScreen = screen;
  model.consentLanguage = consentLanguage(language);
  model.publisherCountryCode = tcf.publisher_country_code;
  model.isServiceSpecific = true;
  model.purposeOneTreatment = false;
  model.useNonStandardTexts = false;
  for (const restriction of tcf.publisher_restrictions) {
    for (const vendorId of restriction.vendor_ids) {
      if (gvl.vendors[vendorId]) model.publisherRestrictions.add(vendorId, new PurposeRestriction(restriction.purpose_id, restriction.restriction_type));
    }
  }
  model.purposeConsents.set([...choice.purposes]);
  model.purposeLegitimateInterests.set([...choice.purposeLi]);
  model.specialFeatureOptins.set([...choice.specialFeatures]);
  model.vendorConsents.set([...choice.vendors]);
  model.vendorLegitimateInterests.set([...choice.vendorLi]);
  // Every vendor of the list was shown: the disclosed vendors segment.
  model.setAllVendorsDisclosed();
  // The publisher's own purposes: its consents as the visitor's, its legitimate interests unless objected to.
  model.publisherConsents.set([...choice.purposes]);
  model.publisherLegitimateInterests.set(tcf.legitimate_interest_purposes.filter((id) => choice.purposeLi.has(id) && !CONSENT_ONLY.includes(id)));
  model.updated();
  return TCString.encode(model);
}

/**
 * Google's Additional Consent string, version 2 (ac-string.ts): every provider of the account's is
 * disclosed, all consented to or none; null when the account names none.
 */
export function acString(atpIds: readonly number[], consented: boolean): string | null {
  return atpIds.length === 0 ? null : buildAcString(atpIds, consented ? atpIds : []);
}

/**
 * A stored TC string still answers for the visitor when it decodes, is this CMP's, of the vendor
 * list's policy version, and disclosed every vendor now listed: a new vendor (a vendor list
 * refresh, or one the publisher added), another CMP ID or a new policy asks again.
 */
export function storedModel(stored: string | undefined, gvl: GVL, tcf: BannerTcf): TCModel | undefined {
  if (!stored) return undefined;
  try {
    const model = TCString.decode(stored);
    const fresh =
      Number(model.cmpId) === tcf.cmp_id &&
      Number(model.policyVersion) === gvl.tcfPolicyVersion &&
      model.isServiceSpecific &&
      ids(gvl.vendors).every((id) => model.vendorsDisclosed.has(id));
    return fresh ? model : undefined;
  } catch {
    return undefined;
  }
}

export function readCookie(name: string): string | undefined {
  for (const pair of document.cookie.split(';')) {
    const [key, ...value] = pair.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** Writes a first-party cookie for `days`, on `domain` (the account's, where the choice is kept too) or the page's host. */
export function writeCookie(name: string, value: string, { domain, secure, days }: { domain?: string; secure: boolean; days: number }): void {
  document.cookie = `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${Math.round(days * 86400)}; SameSite=Lax` +
    (secure ? '; Secure' : '') + (domain ? `; Domain=${domain}` : '');
}
