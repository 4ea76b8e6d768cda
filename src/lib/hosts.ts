import { domainToASCII } from 'node:url';
import { parse } from 'tldts';

const HOSTNAME = /^(\*\.)?(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** A top-level label starts with a letter (`com`, `xn--p1ai`); all digits would be a mistyped address. */
const TOP_LEVEL_LABEL = /\.[a-z][a-z0-9-]*$/;

/** `localhost` and IPv4 addresses: development and intranet hosts, outside the Public Suffix List. */
export const isLocalHost = (host: string): boolean => host === 'localhost' || IPV4.test(host);

/**
 * A host a browser can load a site from: a dotted name, an IPv4 address, or `localhost` for development.
 * A name must be at least a registrable domain by the Public Suffix List (private suffixes such as
 * `github.io` included), wildcard or not: `*.com`, `*.co.uk` or `github.io` would let every site
 * under that suffix in (a domain covers its subdomains).
 */
function isWebsiteHost(host: string): boolean {
  if (isLocalHost(host)) return true;
  const base = host.startsWith('*.') ? host.slice(2) : host;
  if (!HOSTNAME.test(host) || !TOP_LEVEL_LABEL.test(base)) return false;
  return parse(base, { allowPrivateDomains: true }).domain !== null;
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

/**
 * Whether a browser origin's host belongs to a domain: `*.example.com` covers subdomains only; a
 * name covers itself and its `www.` twin (`www.example.com` and `example.com` are one site).
 */
export function originMatches(originHost: string, domain: string): boolean {
  if (domain.startsWith('*.')) return originHost.endsWith(domain.slice(1));
  return originHost === domain || originHost === `www.${domain}` || `www.${originHost}` === domain;
}
