import { Type, type Static } from 'typebox';
import type { BannerTcf } from '../../../banner/src/config.ts';
import { Nullable } from '../../http/schemas.ts';
import type { Problems } from '../../http/validation.ts';
import { MAX_VENDOR_ID, PURPOSE_COUNT } from './vendor-list.ts';

/**
 * An account's IAB TCF settings (issue 47), kept in its banner settings under `tcf`: what the banner
 * needs to act as a TCF CMP for the vendors the publisher works with.
 */

/** The CMP ID is 12 bits; 0 and 1 are not valid IDs (the IAB's CMP validator refuses them). */
export const MIN_CMP_ID = 2;
export const MAX_CMP_ID = 4095;
export const MAX_VENDORS = 2000;
export const MAX_ATP_IDS = 1000;
export const MAX_ATP_ID = 1_000_000;
export const MAX_RESTRICTIONS = 50;
/**
 * Purposes that may rest on legitimate interest: TCF policy 2.2 (and 2.3) allows it for none of
 * purpose 1 and purposes 3 to 6 (profiles and personalisation).
 */
export const LEGITIMATE_INTEREST_PURPOSES = [2, 7, 8, 9, 10, 11] as const;
/** The country written into the TC string when the publisher named none: the library's default, "unknown". */
export const UNKNOWN_PUBLISHER_COUNTRY = 'AA';

export const RESTRICTION_TYPES_DESCRIPTION = '0: not allowed, 1: consent required, 2: legitimate interest required';

const VendorIds = (description: string) => Type.Array(Type.Integer({ minimum: 1, maximum: MAX_VENDOR_ID }), { maxItems: MAX_VENDORS, uniqueItems: true, description });
const Restriction = Type.Object({
  purpose_id: Type.Integer({ minimum: 1, maximum: PURPOSE_COUNT }),
  restriction_type: Type.Integer({ minimum: 0, maximum: 2, description: RESTRICTION_TYPES_DESCRIPTION }),
  vendor_ids: VendorIds('The GVL vendors the restriction applies to'),
});

const TcfFields = {
  enabled: Type.Boolean({ description: 'The banner is an IAB TCF CMP in opt-in regions; needs cmp_id and a loaded Global Vendor List' }),
  cmp_id: Nullable(Type.Integer({ minimum: MIN_CMP_ID, maximum: MAX_CMP_ID, description: 'The CMP ID the IAB registered for the operator of this service' })),
  cmp_version: Type.Integer({ minimum: 1, maximum: 4095, description: 'The CMP version written into the TC string' }),
  vendor_ids: VendorIds('The Global Vendor List vendors the publisher works with'),
  publisher_country_code: Nullable(Type.String({
    pattern: '^[A-Za-z]{2}$',
    description: `The publisher's country (ISO 3166-1 alpha-2) in the TC string; null: ${UNKNOWN_PUBLISHER_COUNTRY}, unknown`,
  })),
  google_atp_ids: Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ATP_ID }), {
    maxItems: MAX_ATP_IDS, uniqueItems: true, description: "Google's Additional Consent: the ad technology providers (not in the GVL) the AC string names",
  }),
  legitimate_interest_purposes: Type.Array(Type.Integer({ minimum: 1, maximum: PURPOSE_COUNT }), {
    maxItems: PURPOSE_COUNT, uniqueItems: true,
    description: `The purposes the publisher itself processes under legitimate interest: ${LEGITIMATE_INTEREST_PURPOSES.join(', ')} (never 1, nor 3 to 6)`,
  }),
  publisher_restrictions: Type.Array(Restriction, { maxItems: MAX_RESTRICTIONS, description: 'Per purpose, the legal basis the publisher requires of some vendors' }),
};

export const TcfSettingsSchema = Type.Object(TcfFields, { description: 'IAB TCF 2.3: the banner as a TCF CMP (see docs/tcf.md)' });
export type TcfSettings = Static<typeof TcfSettingsSchema>;

export const TcfChangesSchema = Nullable(Type.Partial(Type.Object(TcfFields), {
  description: 'IAB TCF settings: only those sent change; null: off and every TCF setting back to its default',
}));
export type TcfChanges = Static<typeof TcfChangesSchema>;

export const DEFAULT_TCF: TcfSettings = Object.freeze({
  enabled: false,
  cmp_id: null,
  cmp_version: 1,
  vendor_ids: [],
  publisher_country_code: null,
  google_atp_ids: [],
  legitimate_interest_purposes: [],
  publisher_restrictions: [],
}) as TcfSettings;

/** The stored settings over the defaults. */
export function tcfSettingsOf(stored: unknown): TcfSettings {
  const own = (typeof stored === 'object' && stored !== null ? stored : {}) as Partial<TcfSettings>;
  return { ...DEFAULT_TCF, ...own };
}

/** What the banner knows of the vendor list in force: its version and its vendors; undefined: none is loaded. */
export interface VendorListFacts {
  version: number;
  tcfPolicyVersion: number;
  vendorIds: ReadonlySet<number>;
}

const listed = (ids: readonly number[]) => ids.slice(0, 10).join(', ') + (ids.length > 10 ? ', …' : '');

/**
 * The settings `changes` give over `current` (null: the defaults again), checked: enabling needs a
 * CMP ID and a loaded vendor list, every vendor named must be in it, legitimate interest only where
 * the policy allows it. Each problem is added to `problems` as a sentence naming the field.
 */
export function mergeTcfChanges(problems: Problems, current: TcfSettings, changes: TcfChanges, gvl: VendorListFacts | undefined): TcfSettings {
  if (changes === null) return { ...DEFAULT_TCF };
  const next: TcfSettings = { ...current, ...changes };
  if (changes.publisher_country_code) next.publisher_country_code = changes.publisher_country_code.toUpperCase();
  if (next.enabled && next.cmp_id === null) problems.add('tcf.cmp_id', "can't be blank: enabling TCF needs the CMP ID the IAB registered");
  if (next.enabled && !gvl) problems.add('tcf', 'cannot be enabled: no Global Vendor List is loaded (TCF_GVL_FILE or TCF_GVL_URL, see docs/tcf.md)');
  const notAllowed = next.legitimate_interest_purposes.filter((id) => !(LEGITIMATE_INTEREST_PURPOSES as readonly number[]).includes(id));
  if (notAllowed.length > 0) {
    problems.add('tcf.legitimate_interest_purposes', `may not include purposes ${listed(notAllowed)}: legitimate interest is allowed for ${LEGITIMATE_INTEREST_PURPOSES.join(', ')} only`);
  }
  for (const [i, restriction] of next.publisher_restrictions.entries()) {
    if (restriction.restriction_type === 2 && !(LEGITIMATE_INTEREST_PURPOSES as readonly number[]).includes(restriction.purpose_id)) {
      problems.add(`tcf.publisher_restrictions[${i}].restriction_type`, `cannot require legitimate interest for purpose ${restriction.purpose_id}`);
    }
  }
  const restricted = next.publisher_restrictions.map((r) => r.purpose_id);
  if (new Set(restricted).size !== restricted.length) problems.add('tcf.publisher_restrictions', 'may name each purpose once');
  // Vendors are checked against the list in force only when they change: a vendor the IAB removed later does not block other changes.
  if (changes.vendor_ids !== undefined || changes.publisher_restrictions !== undefined) {
    const named = [...(changes.vendor_ids ?? []), ...(changes.publisher_restrictions ?? []).flatMap((r) => r.vendor_ids)];
    const unknown = [...new Set(named.filter((id) => !gvl?.vendorIds.has(id)))];
    if (unknown.length > 0) {
      problems.add('tcf.vendor_ids', gvl
        ? `must be vendors of the Global Vendor List in force (version ${gvl.version}); unknown: ${listed(unknown)}`
        : `must be vendors of the Global Vendor List, and none is loaded; unknown: ${listed(unknown)}`);
    }
  }
  return next;
}

/**
 * What the banner script is given for an account with TCF on and a vendor list loaded (else
 * undefined: the script has no `tcf`): the vendors the list still carries, the list's version.
 */
export function bannerTcf(settings: TcfSettings, gvl: VendorListFacts | undefined): BannerTcf | undefined {
  if (!settings.enabled || settings.cmp_id === null || !gvl) return undefined;
  const inList = (id: number) => gvl.vendorIds.has(id);
  return {
    cmp_id: settings.cmp_id,
    cmp_version: settings.cmp_version,
    publisher_country_code: settings.publisher_country_code ?? UNKNOWN_PUBLISHER_COUNTRY,
    vendor_ids: settings.vendor_ids.filter(inList).sort((a, b) => a - b),
    google_atp_ids: [...settings.google_atp_ids].sort((a, b) => a - b),
    legitimate_interest_purposes: [...settings.legitimate_interest_purposes].sort((a, b) => a - b),
    publisher_restrictions: settings.publisher_restrictions.map((r) => ({
      purpose_id: r.purpose_id,
      restriction_type: r.restriction_type as 0 | 1 | 2,
      vendor_ids: r.vendor_ids.filter(inList).sort((a, b) => a - b),
    })),
    gvl_version: gvl.version,
    tcf_policy_version: gvl.tcfPolicyVersion,
  };
}
