/**
 * Where the visitor is, and so the banner's mode: from the page (`data-region="US-CA"` on the script
 * tag), from this session's earlier answer, or from one small request to `GET /widget/{id}/region`.
 * The mode is always the account's rules in this script applied to the place, so that a page that
 * names its region and a page that asks agree; but where the visitor's clock is one for which
 * those rules give opt-in wherever they may be, opt-in is shown at once, with no request (the
 * consent's place is then found by the service).
 */

import { config, script, serviceBase } from './account.ts';
import { isCountryCode } from '../../src/geo/country-codes.ts';
import type { BannerMode } from './config.ts';

export interface Place {
  /** ISO 3166-1 alpha-2; null when not known (or not asked: a returning visitor's opt-in choice needs no place). */
  country: string | null;
  /** ISO 3166-2 (`US-CA`); null when not known. */
  region: string | null;
  mode: BannerMode;
}

/** How long the banner waits for the region's answer before it decides without it. */
export const REGION_TIMEOUT_MS = 1500;
/** This session's answer, so that later pages make no request. */
const SESSION_KEY = 'consentry_region';
/** Strictest first. */
const STRICTNESS: readonly BannerMode[] = ['opt-in', 'opt-out', 'notice', 'none'];

/** The first rule covering the place (a country covers all of it, a subdivision itself), else the default mode. */
export function modeAt(country: string | null, region: string | null): BannerMode {
  const { rules, default_mode } = config.regions;
  if (!country) return default_mode;
  return rules.find((rule) => rule.regions.some((code) => code === country || code === region))?.mode ?? default_mode;
}

const placeOf = (country: string | null, region: string | null): Place => ({ country, region, mode: modeAt(country, region) });

/** `DE`, `US-CA` (any case): the page's own word for where its visitor is. */
function pageRegion(): Place | undefined {
  const code = script?.getAttribute('data-region')?.trim().toUpperCase();
  if (!code) return undefined;
  // A country the service knows (it refuses a consent from any other): `UK` would lose every choice.
  if (/^[A-Z]{2}(-[A-Z0-9]{1,3})?$/.test(code) && isCountryCode(code.slice(0, 2))) return placeOf(code.slice(0, 2), code.length > 2 ? code : null);
  const hint = code.startsWith('UK') ? ' (the United Kingdom is GB)' : '';
  console.warn(`Consentry: data-region="${code}" is not a country (DE) or a subdivision (US-CA)${hint}; the region is asked of the service.`);
  return undefined;
}

function remembered(): Place | undefined {
  try {
    const known = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
    return known && typeof known === 'object' ? placeOf(known.country ?? null, known.region ?? null) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opt-in, where the visitor's clock (its UTC offsets in January and July, read here and never sent)
 * is one for which the account's rules give opt-in in every country that keeps it: the strictest
 * mode, lawful wherever they turn out to be. Not the time zone's name: reading it costs the page
 * 30–50 ms (src/geo/time-zones.ts).
 */
function clockPlace(): Place | undefined {
  const clocks = config.regions.opt_in_clocks;
  const year = new Date().getFullYear();
  const clock = `${new Date(year, 0, 1).getTimezoneOffset()}/${new Date(year, 6, 1).getTimezoneOffset()}`;
  return clocks.length > 0 && clocks.includes(clock) !== (clocks[0] === '*') ? { country: null, region: null, mode: 'opt-in' } : undefined;
}

/**
 * The place known without a request: the page's `data-region`, else the clock's opt-in, else this
 * session's earlier answer (asked only on a page whose clock is not settled: never both).
 */
export function knownPlace(): Place | undefined {
  return pageRegion() ?? clockPlace() ?? remembered();
}

/**
 * When the region cannot be learnt (the request failed or took longer than REGION_TIMEOUT_MS): the
 * strictest mode the account uses anywhere, opt-in under the shipped rules. The visitor may be where
 * the strictest rule applies; asking for consent there is lawful, running trackers without it is not.
 */
export function fallbackMode(): BannerMode {
  const { rules, default_mode } = config.regions;
  return STRICTNESS.find((mode) => mode === default_mode || rules.some((rule) => rule.mode === mode)) ?? 'opt-in';
}

/** Asks the service where the visitor is (the answer is kept for the session); never fails. */
export function askPlace(): Promise<Place> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), REGION_TIMEOUT_MS);
  // With credentials: Chromium then reuses the script's connection (see the route).
  return fetch(`${serviceBase}/widget/${config.account.id}/region`, { credentials: 'include', cache: 'no-store', signal: controller.signal })
    .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
    .then((answer: { country?: string | null; region?: string | null }) => {
      const location = { country: answer.country ?? null, region: answer.region ?? null };
      try {
        sessionStorage.setItem(SESSION_KEY, JSON.stringify(location));
      } catch {
        // no session storage (a sandboxed frame): the next page asks again
      }
      return placeOf(location.country, location.region);
    })
    .catch((): Place => ({ country: null, region: null, mode: fallbackMode() }))
    .finally(() => clearTimeout(timer));
}
