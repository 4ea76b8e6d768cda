/**
 * Where a visitor was and which banner they were shown, in words: the country names come from the
 * browser (Intl.DisplayNames), so that the dashboard carries no table of its own.
 */
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** `DE` → `Germany`; a code the browser cannot name stays a code; null: the location was unknown. */
export function countryName(code: string | null | undefined): string {
  if (!code) return 'Unknown';
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** `Germany (DE)`, `United States (US-CA)`: a consent's place, its codes kept beside the name. */
export function placeOf(country: string | null | undefined, region?: string | null): string {
  if (!country) return region ? region : 'Unknown';
  return `${countryName(country)} (${region ?? country})`;
}

export const MODES = ['opt-in', 'opt-out', 'notice', 'none'] as const;
export type Mode = (typeof MODES)[number];

/** Each mode in a few words, as the banner applies it. */
export const MODE_LABELS: Record<Mode, string> = {
  'opt-in': 'Opt-in: ask first',
  'opt-out': 'Opt-out: a "Do Not Sell" link',
  notice: 'Notice: inform, everything on',
  none: 'None: no banner',
};

/** What each mode does, in a sentence. */
export const MODE_MEANINGS: Record<Mode, string> = {
  'opt-in': 'optional categories stay off until the visitor accepts them (the GDPR\'s model)',
  'opt-out': 'everything runs from the first page; a small notice and a "Do Not Sell or Share My Personal Information" link let the visitor switch off the categories marked sale or sharing, and a Global Privacy Control signal does so without a click',
  notice: 'everything runs; a notice the visitor dismisses says so',
  none: 'no banner, everything runs; the JavaScript API and Consent Mode still answer',
};

/** A mode's short name, for tables. */
export function modeName(mode: string | null | undefined): string {
  if (!mode) return 'Not recorded';
  return { 'opt-in': 'Opt-in', 'opt-out': 'Opt-out', notice: 'Notice', none: 'No banner' }[mode] ?? mode;
}

/**
 * The attribution DB-IP's free database asks for (CC BY 4.0) wherever the locations it gives are
 * shown: the statistics by country, the region preview.
 */
export function GeoAttribution() {
  return <p class="hint attribution"><a href="https://db-ip.com">IP Geolocation by DB-IP</a></p>;
}
