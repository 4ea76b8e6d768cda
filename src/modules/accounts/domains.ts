const HOSTNAME = /^(\*\.)?(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * A website's host from what people paste: `https://www.Example.com/path` → `www.example.com`.
 * Returns undefined for anything that is not a host name (`*.` allowed in front for wildcards).
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
  return HOSTNAME.test(value) ? value : undefined;
}

/** Whether a browser origin belongs to a domain (`*.example.com` covers subdomains only). */
export function originMatches(originHost: string, domain: string): boolean {
  if (domain.startsWith('*.')) return originHost.endsWith(domain.slice(1));
  return originHost === domain;
}
