import { domainToASCII } from 'node:url';

const HOSTNAME = /^(\*\.)?(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** A top-level label starts with a letter (`com`, `xn--p1ai`); all digits would be a mistyped address. */
const TOP_LEVEL_LABEL = /\.[a-z][a-z0-9-]*$/;

/**
 * A host a browser can load a site from: a dotted name, an IPv4 address, or `localhost` for development.
 * A wildcard needs a dotted name under it: `*.com` would let every .com site in.
 */
function isWebsiteHost(host: string): boolean {
  if (host === 'localhost' || IPV4.test(host)) return true;
  const base = host.startsWith('*.') ? host.slice(2) : host;
  return HOSTNAME.test(host) && TOP_LEVEL_LABEL.test(base);
}

/**
 * A website's host from what people paste: `https://www.Example.com/path` → `www.example.com`,
 * `bücher.de` → `xn--bcher-kva.de`. Returns undefined for anything that is not a host name
 * (`*.` allowed in front for wildcards).
 */
export function normaliseDomain(input: string): string | undefined {
  let value = input.trim().toLowerCase();
  if (value.includes('://')) {
    try {
      value = new URL(value).hostname;
    } catch {
      return undefined;
    }
  }
  value = value.replace(/\/.*$/, '').replace(/:\d+$/, '').replace(/\.$/, '');
  // Only names beyond ASCII go through IDNA, whose IPv4 shorthand would turn `1.2.3` into `1.2.0.3`.
  if (/[^\x00-\x7f]/.test(value)) value = domainToASCII(value);
  return isWebsiteHost(value) ? value : undefined;
}

/** Whether a browser origin belongs to a domain (`*.example.com` covers subdomains only). */
export function originMatches(originHost: string, domain: string): boolean {
  if (domain.startsWith('*.')) return originHost.endsWith(domain.slice(1));
  return originHost === domain;
}
