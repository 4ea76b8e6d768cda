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

/** What the service embeds in each account's script (the same as `config.json`'s banner fields). */
export interface BannerConfig {
  /** `domain`: where the script keeps the visitor's choice (config.json leaves it out). */
  account: { id: string; name: string; default_language: string; domain: string };
  revision: number;
  banner: BannerLook;
  /** Every language the banner speaks, each complete. */
  texts: Record<string, Texts>;
  categories: BannerCategory[];
}
