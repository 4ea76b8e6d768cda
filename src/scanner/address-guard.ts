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
/**
 * IPv6 is public only in global unicast, 2000::/3: the rest is loopback, unspecified, unique
 * local (fc00::/7, fd00:ec2::254 included), link-local, multicast, the local-use NAT64 prefix
 * 64:ff9b:1::/48 (whose format the network chooses) and reserved space. Within it: the IETF
 * protocol assignments 2001::/23 (Teredo 2001::/32 among them, whose client address is hidden)
 * and documentation.
 */
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');
for (const [network, prefix] of [['2001::', 23], ['2001:db8::', 32], ['3fff::', 20]] as const) {
  reserved.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of what `isIP` calls an IPv6 address (a zone, `%eth0`, left out). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [head, tail] = text.split('::');
  const front = groupsOf(head);
  if (tail === undefined) return front;
  const back = groupsOf(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/**
 * The IPv4 address an IPv6 one stands for, however written (dotted or hex, compressed or not):
 * IPv4-compatible `::a.b.c.d` (`::` and `::1` among them), IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d` and 6to4 `2002:AABB:CCDD::/48`.
 */
function embeddedIpv4(groups: number[]): string | undefined {
  const zero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const [g0, g1, g2, , g4, g5, g6, g7] = groups;
  if (zero(0, 5) && (g5 === 0 || g5 === 0xffff)) return ipv4Of(g6, g7);
  if (zero(0, 4) && g4 === 0xffff && g5 === 0) return ipv4Of(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && zero(2, 6)) return ipv4Of(g6, g7);
  if (g0 === 0x2002) return ipv4Of(g1, g2);
  return undefined;
}

/**
 * The IPv4 address at the end of an ISATAP interface identifier (`…:0:5efe:a.b.c.d`, `…:200:5efe:…`),
 * which a site's ISATAP router tunnels to: such an address is refused when that IPv4 address is.
 */
const isatapIpv4 = ([, , , , g4, g5, g6, g7]: number[]) => ((g4 === 0 || g4 === 0x200) && g5 === 0x5efe ? ipv4Of(g6, g7) : undefined);

/**
 * Whether an IP address is on the public internet. An IPv6 address that carries an IPv4 one is
 * judged as that IPv4 address, whatever its spelling: `::7f00:1` is loopback.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !reserved.check(address, 'ipv4');
  if (family !== 6) return false;
  const groups = ipv6Groups(address);
  const carried = embeddedIpv4(groups);
  if (carried !== undefined) return isPublicAddress(carried);
  const tunnelled = isatapIpv4(groups);
  if (tunnelled !== undefined && !isPublicAddress(tunnelled)) return false;
  const canonical = groups.map((group) => group.toString(16)).join(':');
  return globalUnicast.check(canonical, 'ipv6') && !reserved.check(canonical, 'ipv6');
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
