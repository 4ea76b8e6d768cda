import * as CookieConsent from 'vanilla-cookieconsent';
import { currentPreferences, state, type ConsentState } from './state.ts';
/* tcf */
import { showTcfPreferences } from './tcf.ts';
/* /tcf */

declare global {
  interface Window {
    Consentry?: ConsentryApi;
  }
}

/** What the page's own scripts may ask of the banner: `window.Consentry`. */
interface ConsentryApi {
  getConsent(): ConsentState | null;
  acceptedCategory(slug: string): boolean;
  showPreferences(): void;
  onChange(callback: (consent: ConsentState) => void): () => void;
}

const listeners = new Set<(consent: ConsentState) => void>();

/** Tells the page of a choice: each `onChange` callback, then the `consentry:change` event. */
export function notify(): void {
  const current = state();
  if (!current) return;
  for (const listener of listeners) {
    try {
      listener(current);
    } catch (error) {
      setTimeout(() => { throw error; });
    }
  }
  window.dispatchEvent(new CustomEvent('consentry:change', { detail: current }));
}

export function installApi(): void {
  window.Consentry = {
    getConsent: state,
    acceptedCategory: (slug) => !!currentPreferences()?.acceptedCategories.includes(slug),
    // Where the TCF screens ask, their second layer.
    showPreferences: () => /* tcf */ showTcfPreferences() || /* /tcf */ CookieConsent.showPreferences(),
    onChange(callback) {
      listeners.add(callback);
      return () => listeners.delete(callback);
    },
  };
}
