/**
 * The five standard categories the AI sorts storage items into, and how the vocabularies of the
 * knowledge sources map onto them.
 */
export const STANDARD_CATEGORIES = ['necessary', 'functional', 'analytics', 'marketing', 'preferences'] as const;
export type StandardCategory = (typeof STANDARD_CATEGORIES)[number];

export interface StandardCategoryDefinition {
  name: string;
  description: string;
  /** Visitors cannot reject it. */
  required: boolean;
  /** Slugs or names an account may already use for it (`statistics` is analytics). */
  synonyms: string[];
}

export const STANDARD_CATEGORY_DEFINITIONS: Record<StandardCategory, StandardCategoryDefinition> = {
  necessary: {
    name: 'Necessary',
    description: 'Needed for the website to work: sessions, security, load balancing and the consent choice itself.',
    required: true,
    synonyms: ['necessary', 'strictly-necessary', 'strictly_necessary', 'essential', 'required', 'technical', 'security'],
  },
  functional: {
    name: 'Functional',
    description: 'Features visitors may do without: embedded videos and maps, chat widgets, third-party tools.',
    required: false,
    synonyms: ['functional', 'functionality'],
  },
  analytics: {
    name: 'Analytics',
    description: 'Measure how visitors use the website, to improve it.',
    required: false,
    synonyms: ['analytics', 'statistics', 'performance', 'measurement', 'stats'],
  },
  marketing: {
    name: 'Marketing',
    description: 'Advertising, retargeting and social media tracking across websites.',
    required: false,
    synonyms: ['marketing', 'advertising', 'ads', 'targeting', 'tracking', 'social-media', 'social_media'],
  },
  preferences: {
    name: 'Preferences',
    description: "Remember the visitor's choices, such as language or region.",
    required: false,
    synonyms: ['preferences', 'personalization', 'personalisation', 'personalization-cookies'],
  },
};

/**
 * Open Cookie Database categories, mapped plainly. Its "Functional" is defined there as
 * "technical, essential or strictly necessary", but its Functional rows are mostly optional
 * features: ocd-relabel.ts decides them row by row, and only a rule or the registry makes one
 * necessary. "Personalization" is its name for preferences.
 */
const OPEN_COOKIE_DATABASE: Record<string, StandardCategory> = {
  functional: 'functional',
  necessary: 'necessary',
  security: 'necessary',
  personalization: 'preferences',
  preferences: 'preferences',
  analytics: 'analytics',
  marketing: 'marketing',
};

export function fromOpenCookieDatabase(category: string): StandardCategory | undefined {
  return OPEN_COOKIE_DATABASE[category.trim().toLowerCase()];
}

/**
 * third-party-web entity categories: what a cookie set from such a domain most likely is.
 * `other` says nothing and maps to nothing.
 */
const THIRD_PARTY_WEB: Record<string, StandardCategory> = {
  ad: 'marketing',
  marketing: 'marketing',
  social: 'marketing',
  analytics: 'analytics',
  'tag-manager': 'analytics',
  'customer-success': 'functional',
  video: 'functional',
  utility: 'functional',
  content: 'functional',
  cdn: 'necessary',
  hosting: 'necessary',
  'consent-provider': 'necessary',
};

export function fromThirdPartyWeb(category: string): StandardCategory | undefined {
  return THIRD_PARTY_WEB[category];
}
