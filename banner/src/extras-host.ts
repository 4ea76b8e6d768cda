import type * as CookieConsent from 'vanilla-cookieconsent';
import type { BannerCategory, BannerConfig } from './config.ts';

/**
 * What the banner lends the extras file (extras-chunk.ts), which runs apart from it and so
 * shares none of its modules: the library as the banner started it, and the banner's state.
 */
export interface ExtrasHost {
  cc: Pick<typeof CookieConsent, 'acceptCategory' | 'hide' | 'showPreferences' | 'validConsent' | 'getCookie'>;
  config: BannerConfig;
  /** The language the banner speaks to this visitor. */
  language: string;
  serviceBase: string;
  bySlug: Map<string, BannerCategory>;
  /** The account's words for a category or service in the visitor's language. */
  name: (thing: { name: string; translations: BannerConfig['categories'][number]['translations'] }) => string;
  /** The categories on now (see state.ts's currentPreferences), null under opt-in before a choice. */
  preferences: () => { acceptedCategories: string[]; rejectedCategories: string[] } | null;
  /** The consent id of the choice in force once recorded, and the visitor's session. */
  receipt: () => { consentId: string | null; sessionId: string };
}
