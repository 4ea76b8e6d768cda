import { isIPv4, isIPv6 } from 'node:net';

function maskIPv4(ip: string): string {
  return ip.replace(/\.\d+$/, '.0');
}

/** The eight 16-bit groups of an IPv6 address, `::` expanded. */
function expandIPv6(ip: string): number[] {
  const [head, tail = ''] = ip.split('::', 2);
  const part = (text: string) => (text === '' ? [] : text.split(':').map((group) => parseInt(group, 16)));
  const left = part(head);
  const right = ip.includes('::') ? part(tail) : [];
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

/**
 * What is stored of a visitor's address: IPv4 without its last octet, IPv6 without its last
 * 80 bits (the first 48 bits, a provider's routing prefix, remain). Anything else: null.
 */
export function maskIp(ip: string | undefined): string | null {
  if (!ip) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return maskIPv4(mapped[1]);
  if (isIPv4(ip)) return maskIPv4(ip);
  if (!isIPv6(ip) || ip.includes('.')) return null;
  const groups = expandIPv6(ip.split('%')[0]).slice(0, 3);
  return `${groups.map((group) => group.toString(16)).join(':')}::`;
}
