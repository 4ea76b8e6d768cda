import type { Texts } from './translations.ts';

/** Where the banner looks for the visitor's language: the browser's languages, the page's `lang`, the account's default. */
export const LANGUAGE_SOURCES = ['browser', 'page', 'default'] as const;
export type LanguageSource = (typeof LANGUAGE_SOURCES)[number];

/** The account's own words in the languages the banner speaks, by language code; what one leaves out is the default text. */
export type Translated<K extends string> = Record<string, { [key in K]?: string }>;

/** A storage item as the banner lists and clears it. */
export interface BannerStorageItem {
  id: string;
  name: string;
  company_name: string;
  domain: string;
  duration: string;
  description: string;
  storage_type: 'cookie' | 'local_storage' | 'session_storage';
  is_wildcard_cookie: boolean;
  translations: Translated<'description' | 'duration'>;
}

/** A third party that receives data under a category: named in the preferences, with its policy. */
export interface BannerService {
  id: string;
  slug: string;
  name: string;
  description: string;
  company_name: string;
  privacy_policy_url: string | null;
  translations: Translated<'name' | 'description'>;
}

export interface BannerCategory {
  id: string;
  slug: string;
  name: string;
  description: string;
  required: boolean;
  /** Opting out of the sale or sharing of personal data (and of targeted advertising) switches it off. */
  sale_or_sharing: boolean;
  translations: Translated<'name' | 'description'>;
  storage_items: BannerStorageItem[];
  services: BannerService[];
}

export interface BannerLook {
  layout: 'box' | 'bar' | 'cloud';
  position: string;
  theme: { background: string | null; text: string | null; primary: string | null; primary_text: string | null };
  privacy_policy_url: string | null;
  show_reject_all: boolean;
  consent_expiry_days: number;
  /** Where the visitor's language is looked for, in order. */
  language_sources: LanguageSource[];
}

/**
 * How the banner treats a visitor: `opt-in` (optional categories off until the visitor chooses),
 * `opt-out` (on, with a "Do Not Sell or Share" link that switches the sale/sharing ones off),
 * `notice` (a dismissable notice, everything on), `none` (no banner, everything on).
 */
export const BANNER_MODES = ['opt-in', 'opt-out', 'notice', 'none'] as const;
export type BannerMode = (typeof BANNER_MODES)[number];

/**
 * Which mode applies where, the same for every visitor: the script picks the visitor's rule itself
 * (from the page's `data-region`, or the answer of `GET /widget/{id}/region`).
 */
export interface BannerRegions {
  /**
   * In order, first match wins. Only countries (`DE`) and subdivisions (`US-CA`): the named groups are
   * expanded when the script is built. A country covers all of it; a subdivision only itself.
   */
  rules: { regions: string[]; mode: BannerMode }[];
  /** For a visitor no rule covers, or whose location is not known. */
  default_mode: BannerMode;
  /**
   * The clocks for which these rules give opt-in in every country whose time zones keep them: a
   * visitor whose clock is one is shown opt-in at once, with no request. A clock is the UTC offsets
   * on 1 January and 1 July as `Date.getTimezoneOffset()` gives them (`-60/-120`: Central Europe).
   * Either those clocks, or `*` and the clocks that are not (every other one is); empty: none.
   */
  opt_in_clocks: string[];
  /** Google Consent Mode options, passed to `gtag('set', …)`. */
  consent_mode: { ads_data_redaction: boolean; url_passthrough: boolean };
}

/** A publisher restriction of the TCF: for `purpose_id`, the vendors' legal basis is restricted. */
export interface BannerTcfRestriction {
  purpose_id: number;
  /** 0: not allowed, 1: consent required, 2: legitimate interest required (the TCF's RestrictionType). */
  restriction_type: 0 | 1 | 2;
  vendor_ids: number[];
}

/**
 * The IAB TCF settings of an account that has it on (the script of an account without it has no
 * `tcf` at all, and is the same bytes as before TCF existed). The vendors' texts and the purposes'
 * come from `GET /widget/{id}/tcf-vendors.json?lang=xx`, in the visitor's language.
 */
export interface BannerTcf {
  /** The CMP ID the IAB registered for the operator, and the version of their CMP. */
  cmp_id: number;
  cmp_version: number;
  /** The publisher's country (ISO 3166-1 alpha-2), written into the TC string. */
  publisher_country_code: string;
  /** The GVL vendors the publisher works with (the vendor-list route answers these alone). */
  vendor_ids: number[];
  /** Google's Additional Consent: the ad technology providers (not in the GVL) the AC string names. */
  google_atp_ids: number[];
  /** The purposes the publisher itself relies on legitimate interest for (the TC string's publisher segment). */
  legitimate_interest_purposes: number[];
  publisher_restrictions: BannerTcfRestriction[];
  /**
   * The Global Vendor List in force when the script was built (`vendorListVersion`) and its
   * `tcfPolicyVersion`: the same as the vendor-list route's answer, so that a stored TC string of
   * an older list is known to be stale before that file is fetched.
   */
  gvl_version: number;
  tcf_policy_version: number;
}

/** What the service embeds in each account's script (the same as `config.json`'s banner fields). */
export interface BannerConfig {
  /** `domain`: where the script keeps the visitor's choice (config.json leaves it out). */
  account: { id: string; name: string; default_language: string; domain: string };
  revision: number;
  banner: BannerLook;
  regions: BannerRegions;
  /** Every language the banner speaks, each complete. */
  texts: Record<string, Texts>;
  categories: BannerCategory[];
  /**
   * SHA-256 of the canonical JSON of the fields above: the notice snapshot the service stored before
   * serving this configuration (GET /api/v1/notices/{hash}), sent back with each consent.
   * Absent in the editor's preview.
   */
  notice_hash?: string;
  /** Only for an account with TCF on: see BannerTcf. */
  tcf?: BannerTcf;
}
