import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a scan may never reach unless the operator allows private networks: loopback, the
 * private ranges, link-local (where cloud metadata services live, 169.254.169.254 and fd00:ec2::254),
 * carrier-grade NAT, multicast, documentation and other reserved ranges. Everything else is public.
 */
const reserved = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  reserved.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) {
  reserved.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 one carries (`::ffff:10.0.0.1`, NAT64 `64:ff9b::10.0.0.1`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IP address is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !reserved.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return isPublicAddress(v4);
    return !reserved.check(address, 'ipv6');
  }
  return false;
}

export class RefusedAddressError extends Error {}
/** The host has no address (a typo, a dead domain, no DNS). */
export class UnresolvedHostError extends Error {}

/** Decides which resolved addresses a scan may connect to. */
export type AddressPolicy = (address: string) => boolean;

export const addressPolicy = (allowPrivateNetworks: boolean): AddressPolicy =>
  allowPrivateNetworks ? () => true : isPublicAddress;

/**
 * Resolves a host and returns the one address to connect to, refusing the host when any of its
 * addresses is refused: connecting to the checked address (never resolving again) leaves no room
 * for DNS rebinding between the check and the connection.
 */
export async function resolveAllowed(host: string, policy: AddressPolicy): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[|\]$/g, '');
  let found: Array<{ address: string; family: number }>;
  try {
    found = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await lookup(bare, { all: true, verbatim: true });
  } catch {
    found = [];
  }
  if (found.length === 0) throw new UnresolvedHostError(`${host} does not resolve`);
  const refused = found.find((entry) => !policy(entry.address));
  if (refused) throw new RefusedAddressError(`${host} resolves to a private or reserved address (${refused.address})`);
  return found[0];
}
