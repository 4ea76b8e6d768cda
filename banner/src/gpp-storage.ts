import { config } from './account.ts';
import { eraseCookie } from './clearing.ts';
import { ownDomain, secureCookie } from './state.ts';

/**
 * Where the GPP string is kept for scripts and servers that read it without calling `__gpp`: the
 * first-party cookies `__gpp` (the string) and `__gpp_sid` (the applicable section ids, separated by
 * commas), the names server-side ad stacks look for, on the domain the choice is kept on and for as
 * long as the choice.
 */
export const GPP_COOKIE = '__gpp';
export const GPP_SID_COOKIE = '__gpp_sid';

export function keepGppString(gppString: string, applicable: number[]): void {
  const attributes = `; Path=/; Max-Age=${config.banner.consent_expiry_days * 86_400}; SameSite=Lax` +
    (secureCookie ? '; Secure' : '') + (ownDomain ? `; Domain=${ownDomain}` : '');
  document.cookie = `${GPP_COOKIE}=${gppString}${attributes}`;
  document.cookie = `${GPP_SID_COOKIE}=${applicable.join(',')}${attributes}`;
}

/** Where no section applies, a string kept on an earlier visit (from another region) no longer speaks for the visitor. */
export function forgetGppString(): void {
  const names = document.cookie.split(';').map((pair) => pair.split('=')[0].trim());
  for (const name of [GPP_COOKIE, GPP_SID_COOKIE]) if (names.includes(name)) eraseCookie(name);
}
