import * as CookieConsent from 'vanilla-cookieconsent';
import { config } from './account.ts';
import { gpc } from './gpc.ts';
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

export const returning =
  previous?.revision === config.revision && Array.isArray(previous.categories) && (previous.expirationTime ?? Infinity) > Date.now();

export const accepted = (slug: string) => CookieConsent.acceptedCategory(slug);
export const rejected = (slug: string) => CookieConsent.validConsent() && !CookieConsent.acceptedCategory(slug);

/** The library answers once it has started (at DOMContentLoaded); until then the stored choice does. */
let started = false;
export function markStarted(): void {
  started = true;
}

/** A returning visitor's choice as the library will read it: the required categories, then the stored ones. */
function storedPreferences(): Pick<CookieConsent.UserPreferences, 'acceptType' | 'acceptedCategories' | 'rejectedCategories'> | null {
  if (!returning) return null;
  const required = config.categories.filter((category) => category.required).map((category) => category.slug);
  const acceptedCategories = Array.from(new Set([...required, ...previous!.categories!]));
  const acceptType = acceptedCategories.length === config.categories.length ? 'all' : acceptedCategories.length === required.length ? 'necessary' : 'custom';
  const rejectedCategories = config.categories.map((category) => category.slug).filter((slug) => !acceptedCategories.includes(slug));
  return { acceptType, acceptedCategories, rejectedCategories };
}

export function currentPreferences() {
  if (!started) return storedPreferences();
  return CookieConsent.validConsent() ? CookieConsent.getUserPreferences() : null;
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
  };
}
