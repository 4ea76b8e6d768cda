/**
 * Google Consent Mode v2: everything but security is denied by default, before any tag can run;
 * each category the visitor accepts grants the signals mapped to its slug.
 */
type Signal =
  | 'ad_storage'
  | 'ad_user_data'
  | 'ad_personalization'
  | 'analytics_storage'
  | 'functionality_storage'
  | 'personalization_storage'
  | 'security_storage';

const SIGNALS_BY_SLUG: Record<string, Signal[]> = {
  analytics: ['analytics_storage'],
  marketing: ['ad_storage', 'ad_user_data', 'ad_personalization'],
  functional: ['functionality_storage'],
  preferences: ['personalization_storage'],
};

const GATED: Signal[] = [
  'ad_storage',
  'ad_user_data',
  'ad_personalization',
  'analytics_storage',
  'functionality_storage',
  'personalization_storage',
];

declare global {
  interface Window {
    dataLayer?: unknown[];
  }
}

/** What gtag() does: Google's tags read `arguments` objects from the data layer, not arrays. */
function gtag(..._args: unknown[]): void {
  window.dataLayer = window.dataLayer || [];
  // eslint-disable-next-line prefer-rest-params
  window.dataLayer.push(arguments);
}

let lastUpdate = '';

export function pushDefault(): void {
  const state: Record<string, string | number> = {};
  for (const signal of GATED) state[signal] = 'denied';
  state.security_storage = 'granted';
  state.wait_for_update = 500;
  gtag('consent', 'default', state);
}

/** One update per distinct state: a returning visitor's load and the banner's start say the same once. */
export function pushUpdate(acceptedSlugs: readonly string[]): void {
  const state: Record<string, string> = {};
  for (const signal of GATED) state[signal] = 'denied';
  for (const slug of acceptedSlugs) {
    for (const signal of SIGNALS_BY_SLUG[slug] ?? []) state[signal] = 'granted';
  }
  const key = JSON.stringify(state);
  if (key === lastUpdate) return;
  lastUpdate = key;
  gtag('consent', 'update', state);
}
