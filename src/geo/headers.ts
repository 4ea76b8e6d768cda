import { canonicalLocation, type VisitorLocation } from './regions.ts';

/** Request headers as Node gives them: names in lower case, a repeated header joined or (a few) in a list. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/** The headers the CDN or proxy in front sets and the operator configured; unset: none is believed. */
export interface GeoHeaderNames {
  /** e.g. `cf-ipcountry`, `cloudfront-viewer-country`, `x-vercel-ip-country` */
  country?: string;
  /** e.g. `x-vercel-ip-country-region`, `cloudfront-viewer-country-region`, `cf-region-code`: `CA` or `US-CA` */
  region?: string;
}

function single(headers: RequestHeaders, name: string | undefined): string | null {
  if (!name) return null;
  const value = headers[name.toLowerCase()];
  // Sent twice (a list, or joined with commas by Node): not one answer, so none.
  return typeof value === 'string' && !value.includes(',') ? value : null;
}

/**
 * The visitor's location as the configured headers give it, or null when the country header is not
 * configured, absent, or not a country (`XX`: not known, `T1`: Tor, junk). The region header counts
 * only with a country, and only when it names a subdivision of that country; otherwise region is null.
 * Headers that were not configured are never read, whatever a client sends in them.
 */
export function locationFromHeaders(headers: RequestHeaders, names: GeoHeaderNames): VisitorLocation | null {
  const country = single(headers, names.country);
  if (country === null) return null;
  const location = canonicalLocation(country, single(headers, names.region));
  return location.country === null ? null : location;
}
