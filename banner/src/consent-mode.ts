/**
 * Google Consent Mode v2, by region: before any tag can run, one default per regional rule (its
 * `region` list) and one for everyone else, by each mode's starting state — opt-in regions denied,
 * the others granted but for what the visitor opted out of; then, once the banner knows the
 * visitor's mode, an update with the state in force, and one for each choice. Microsoft's tags
 * (microsoft.ts) are told the same.
 */
import { config } from './account.ts';
import type { BannerMode } from './config.ts';
import { tellMicrosoft } from './microsoft.ts';

type Signal =
  | 'ad_storage'
  | 'ad_user_data'
  | 'ad_personalization'
  | 'analytics_storage'
  | 'functionality_storage'
  | 'personalization_storage';

export type SignalState = Record<Signal, 'granted' | 'denied'>;

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

/** Each signal granted when a category mapped to it is among `acceptedSlugs`. */
function signals(acceptedSlugs: readonly string[]): SignalState {
  const state = {} as SignalState;
  for (const signal of GATED) state[signal] = 'denied';
  for (const slug of acceptedSlugs) {
    for (const signal of SIGNALS_BY_SLUG[slug] ?? []) state[signal] = 'granted';
  }
  return state;
}

const defaultOf = (acceptedSlugs: readonly string[], extra: object = {}) =>
  ({ ...signals(acceptedSlugs), security_storage: 'granted', wait_for_update: 500, ...extra });

/**
 * The defaults: a rule's codes already covered by an earlier rule (the same code, or its country) are
 * left out, since Google applies the most specific region where the rules apply the first match.
 * `starting(mode)`: the categories on before a choice under that mode; `now`: those on at this moment.
 */
export function pushDefaults(starting: (mode: BannerMode) => readonly string[], now: readonly string[]): void {
  const { rules, default_mode, consent_mode } = config.regions;
  const covered = new Set<string>();
  for (const rule of rules) {
    const region = rule.regions.filter((code) => !covered.has(code) && !covered.has(code.slice(0, 2)));
    rule.regions.forEach((code) => covered.add(code));
    if (region.length > 0) gtag('consent', 'default', defaultOf(starting(rule.mode), { region }));
  }
  gtag('consent', 'default', defaultOf(starting(default_mode)));
  if (consent_mode.ads_data_redaction) gtag('set', 'ads_data_redaction', true);
  if (consent_mode.url_passthrough) gtag('set', 'url_passthrough', true);
  tellMicrosoft('default', signals(now));
}

let lastUpdate = '';

/** One update per distinct state: a returning visitor's load and the banner's start say the same once. */
export function pushUpdate(acceptedSlugs: readonly string[]): void {
  const state = signals(acceptedSlugs);
  const key = JSON.stringify(state);
  if (key === lastUpdate) return;
  lastUpdate = key;
  gtag('consent', 'update', state);
  tellMicrosoft('update', state);
}
