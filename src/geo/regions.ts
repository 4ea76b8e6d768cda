import { isCountryCode } from './country-codes.ts';
import { usPrivacyStates } from './us-privacy-laws.ts';
import { US_STATES, US_TERRITORIES } from './us-states.ts';

/** Where a visitor is: a country (ISO 3166-1 alpha-2) and a subdivision (ISO 3166-2, `US-CA`), each null when not known. */
export interface VisitorLocation {
  country: string | null;
  region: string | null;
}

/** The 27 member states of the European Union (Greece is `GR` in ISO 3166, `EL` in the EU's own texts). */
export const EU_MEMBER_STATES: readonly string[] = [
  'AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU',
  'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK',
];

/**
 * Parts of member states that are inside the EU but that geolocation reports as countries of their
 * own: Åland (Finland) and the outermost regions French Guiana, Guadeloupe, Martinique, Réunion,
 * Mayotte and Saint-Martin. (The Azores, Madeira and the Canary Islands are reported as PT and ES.)
 * Overseas countries and territories outside the EU (Greenland, New Caledonia, Aruba, …) are not here.
 */
export const EU_TERRITORIES: readonly string[] = ['AX', 'GF', 'GP', 'MQ', 'RE', 'YT', 'MF'];

const EU = [...EU_MEMBER_STATES, ...EU_TERRITORIES];
const EEA = [...EU, 'IS', 'LI', 'NO'];

/**
 * The named groups a rule may use besides countries and subdivisions, and the codes each stands for
 * on a day. `US` is no group here: it is the country, and a country rule covers all of it (every
 * state and DC).
 */
export const REGION_GROUPS: Readonly<Record<string, (asOf: Date) => readonly string[]>> = {
  EEA: () => EEA,
  EU: () => EU,
  'US-PRIVACY-STATES': usPrivacyStates,
};

const SUBDIVISION = /^([A-Z]{2})-([A-Z0-9]{1,3})$/;

/**
 * The canonical spelling of a region code a rule may use, or null when it is none: a named group, a
 * country (`DE`), a US state or DC (`US-CA`, strictly), or another country's subdivision of ISO
 * 3166-2's form (`CA-QC`, `DE-BY`: a known country, then one to three letters or digits; the
 * subdivisions themselves are not checked). Case and surrounding spaces do not matter. A US
 * outlying area's subdivision code is read as its country (`US-PR` → `PR`), as geolocation reports it.
 */
export function canonicalRegion(raw: string): string | null {
  const code = raw.trim().toUpperCase();
  if (Object.hasOwn(REGION_GROUPS, code) || isCountryCode(code)) return code;
  if (Object.hasOwn(US_STATES, code)) return code;
  if (Object.hasOwn(US_TERRITORIES, code)) return US_TERRITORIES[code];
  const parts = SUBDIVISION.exec(code);
  return parts && parts[1] !== 'US' && isCountryCode(parts[1]) ? code : null;
}

/** What a canonical code stands for on a day: a group's members, or the code itself. */
function membersOf(code: string, asOf: Date): readonly string[] {
  return Object.hasOwn(REGION_GROUPS, code) ? REGION_GROUPS[code](asOf) : [code];
}

/**
 * The countries and subdivisions some canonical codes stand for on a day, each once, in order: what
 * a browser-side list (Consent Mode's `region`) needs.
 */
export function expandRegions(codes: readonly string[], asOf: Date): string[] {
  return [...new Set(codes.flatMap((code) => membersOf(code, asOf)))];
}

/** Whether a visitor is in a place (a country or a subdivision: a group's member, not a group). */
function isIn(place: string, location: VisitorLocation): boolean {
  return place.includes('-') ? location.region === place : location.country === place;
}

/**
 * Whether a canonical code covers a visitor on a day: a country rule the whole country, a
 * subdivision rule only that subdivision (so a visitor whose subdivision is not known is in none),
 * a group any of its members.
 */
export function regionCovers(code: string, location: VisitorLocation, asOf: Date): boolean {
  if (location.country === null) return false;
  return membersOf(code, asOf).some((place) => isIn(place, location));
}

/**
 * A location in its canonical form: a known country, and a subdivision of that country (given as
 * `CA` or `US-CA`; a US subdivision must be a state or DC). A US outlying area is its own country
 * (`US` + `PR` → `PR`). Anything else is dropped: an unknown country drops the region with it.
 */
export function canonicalLocation(country: string | null | undefined, region: string | null | undefined): VisitorLocation {
  const countryCode = country?.trim().toUpperCase() ?? '';
  if (!isCountryCode(countryCode)) return { country: null, region: null };
  const raw = region?.trim().toUpperCase() ?? '';
  const code = raw.includes('-') ? raw : `${countryCode}-${raw}`;
  if (raw === '' || !code.startsWith(`${countryCode}-`)) return { country: countryCode, region: null };
  if (countryCode === 'US') {
    if (Object.hasOwn(US_TERRITORIES, code)) return { country: US_TERRITORIES[code], region: null };
    return { country: 'US', region: Object.hasOwn(US_STATES, code) ? code : null };
  }
  return { country: countryCode, region: SUBDIVISION.test(code) ? code : null };
}
