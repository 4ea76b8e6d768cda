import * as CookieConsent from 'vanilla-cookieconsent';
import { config, saleSlugs } from './account.ts';
import type { BannerMode } from './config.ts';
import { gpc } from './gpc.ts';
import type { Place } from './region.ts';
import { cookieDomain, keepNewestCopy, storedChoice } from './stored.ts';

/** The visitor's choice as the page reads it (`window.Consentry.getConsent()`, `consentry:change`). */
export interface ConsentState {
  accept_type: 'all' | 'custom' | 'necessary';
  accepted: string[];
  rejected: string[];
  revision: number;
  session_id: string;
  consent_id: string | null;
  gpc: boolean;
  /** The mode applied: opt-in, opt-out, notice or none. */
  mode: BannerMode;
}

/**
 * The time in base 36 (8 characters until 2059), then 12 random bytes in hex: 32 characters. Starting
 * with the time, new sessions go to the end of the service's session index instead of anywhere in
 * it. crypto.randomUUID needs a secure context, which an http:// site is not.
 */
function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Date.now().toString(36).padStart(8, '0') + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export const previous = storedChoice();
export const secureCookie = location.protocol === 'https:';
export const sessionId = previous?.data?.session_id || newSessionId();
/** The receipt of the choice in force, once the service has recorded it. */
export let consentId: string | null = previous?.data?.consent_id ?? null;
export function setConsentId(id: string | null): void {
  consentId = id;
}

/** The domain the choice is written on: set when the script runs (it tries a cookie). */
export let ownDomain: string | undefined;
/** Finds the domain the choice is kept on and leaves one copy of it there, the newest. */
export function settleCookie(): void {
  ownDomain = cookieDomain(config.account.domain);
  keepNewestCopy(ownDomain, secureCookie);
}

/** The stored choice is of this revision and not expired. */
const storedValid =
  previous?.revision === config.revision && Array.isArray(previous.categories) && (previous.expirationTime ?? Infinity) > Date.now();
/** A stored choice made under opt-in: consent wherever the visitor now is. */
export const optInChoice = storedValid && (previous!.data?.mode ?? 'opt-in') === 'opt-in';

/** Where the visitor is and the mode there, once decided (see region.ts). */
export let place: Place | undefined;
export function setPlace(decided: Place): void {
  place = decided;
}

/**
 * The stored choice is in force: one made under opt-in, or one made under another mode (a dismissed
 * notice, an opt-out) where opt-in does not apply — it is no consent where the visitor must opt in.
 */
export const returning = () => optInChoice || (storedValid && !!place && place.mode !== 'opt-in');
/** The banner asked the visitor on this page: a mode that shows one, and no choice in force when it loaded. */
export const askedHere = () => !!place && place.mode !== 'none' && !returning();
/** A choice made under another mode, found where opt-in applies: the banner asks as for a new visitor. */
export const storedChoiceVoid = () => storedValid && !returning() && !!place;

/**
 * What is on before any choice under `mode`: under opt-in the required categories; under the others
 * every category, but those of sale or sharing for a browser that sends Global Privacy Control.
 */
export function startingCategories(mode: BannerMode): string[] {
  return config.categories
    .filter((category) => category.required || (mode !== 'opt-in' && !(gpc && saleSlugs.includes(category.slug))))
    .map((category) => category.slug);
}

/** Consent Mode's default for the regions of `mode`: as the mode starts, less what the stored choice turned off. */
export function startingDefaults(mode: BannerMode): string[] {
  // The library stores the required categories among the accepted ones.
  return startingCategories(mode).filter((slug) => !storedValid || previous!.categories!.includes(slug));
}

export const accepted = (slug: string) => !!currentPreferences()?.acceptedCategories.includes(slug);
export const rejected = (slug: string) => CookieConsent.validConsent() && !CookieConsent.acceptedCategory(slug);

/** The library answers once it has started (at DOMContentLoaded); until then the stored choice does. */
let started = false;
export function markStarted(): void {
  started = true;
}

type Preferences = Pick<CookieConsent.UserPreferences, 'acceptType' | 'acceptedCategories' | 'rejectedCategories'>;

/** A set of categories as the library would report it: the required ones always in. */
function preferencesOf(slugs: readonly string[]): Preferences {
  const required = config.categories.filter((category) => category.required).map((category) => category.slug);
  const acceptedCategories = Array.from(new Set([...required, ...slugs]));
  const acceptType = acceptedCategories.length === config.categories.length ? 'all' : acceptedCategories.length === required.length ? 'necessary' : 'custom';
  const rejectedCategories = config.categories.map((category) => category.slug).filter((slug) => !acceptedCategories.includes(slug));
  return { acceptType, acceptedCategories, rejectedCategories };
}

/**
 * The choice in force (the library's once it has started, else the stored one), else what the mode
 * turns on before any choice; null under opt-in before a choice, and while the mode is not known.
 */
export function currentPreferences(): Preferences | null {
  if (started ? CookieConsent.validConsent() : returning()) return started ? CookieConsent.getUserPreferences() : preferencesOf(previous!.categories!);
  return place && place.mode !== 'opt-in' ? preferencesOf(startingCategories(place.mode)) : null;
}

export function state(): ConsentState | null {
  const preferences = currentPreferences();
  if (!preferences) return null;
  return {
    accept_type: preferences.acceptType,
    accepted: preferences.acceptedCategories,
    rejected: preferences.rejectedCategories,
    revision: config.revision,
    session_id: sessionId,
    consent_id: consentId,
    gpc,
    mode: place!.mode,
  };
}
