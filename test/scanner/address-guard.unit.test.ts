/**
 * Every way IPv6 has of carrying an IPv4 address, for a loopback, a private, a link-local and a
 * public one: each is judged as the IPv4 address it carries, however it is written.
 */
import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/scanner/address-guard.ts';

const CARRIED = [
  { kind: 'loopback', dotted: '127.0.0.1', hex: '7f00:1', isPublic: false },
  { kind: 'private', dotted: '10.1.2.3', hex: 'a01:203', isPublic: false },
  { kind: 'private', dotted: '192.168.1.1', hex: 'c0a8:101', isPublic: false },
  { kind: 'link-local', dotted: '169.254.169.254', hex: 'a9fe:a9fe', isPublic: false },
  { kind: 'public', dotted: '8.8.8.8', hex: '808:808', isPublic: true },
] as const;

/** The spellings of one IPv4 address inside IPv6, each with the public prefix it needs, if any. */
const FORMS: Array<[form: string, spell: (dotted: string, hex: string) => string]> = [
  ['mapped', (dotted) => `::ffff:${dotted}`],
  ['mapped, hex', (_, hex) => `::ffff:${hex}`],
  ['mapped, uncompressed', (_, hex) => `0:0:0:0:0:ffff:${hex}`],
  ['mapped, leading zeros and capitals', (_, hex) => `0000:0000:0000:0000:0000:FFFF:${hex.toUpperCase().split(':').map((group) => group.padStart(4, '0')).join(':')}`],
  ['mapped, uncompressed and dotted', (dotted) => `0:0:0:0:0:ffff:${dotted}`],
  ['compatible', (dotted) => `::${dotted}`],
  ['compatible, hex', (_, hex) => `::${hex}`],
  ['compatible, uncompressed', (_, hex) => `0:0:0:0:0:0:${hex}`],
  ['translated', (dotted) => `::ffff:0:${dotted}`],
  ['translated, hex', (_, hex) => `::ffff:0:${hex}`],
  ['translated, uncompressed', (_, hex) => `0:0:0:0:ffff:0:${hex}`],
  ['NAT64', (dotted) => `64:ff9b::${dotted}`],
  ['NAT64, hex', (_, hex) => `64:ff9b::${hex}`],
  ['NAT64, uncompressed', (_, hex) => `64:ff9b:0:0:0:0:${hex}`],
  ['6to4', (_, hex) => `2002:${hex}::`],
  ['6to4, a host in its /48', (_, hex) => `2002:${hex}:1:2:3:4:5`],
  ['6to4, its router', (_, hex) => `2002:${hex}::${hex}`],
  ['ISATAP in a public /64', (dotted) => `2606:4700:1:2:0:5efe:${dotted}`],
  ['ISATAP in a public /64, global identifier', (_, hex) => `2606:4700:1:2:200:5efe:${hex}`],
];

describe('an IPv6 address carrying an IPv4 one is judged as that IPv4 address', () => {
  it.each(CARRIED.flatMap(({ kind, dotted, hex, isPublic }) =>
    FORMS.map(([form, spell]) => [spell(dotted, hex), form, kind, isPublic] as const),
  ))('%s (%s, %s) is public: %s', (address, _form, _kind, isPublic) => {
    expect(isPublicAddress(address)).toBe(isPublic);
  });

  // Where the IPv4 address cannot be known for sure, the address is never public.
  it.each(CARRIED.flatMap(({ kind, dotted, hex }) => [
    // Teredo: the server's address in clear, the client's inverted; neither decides it.
    [`2001:0:${hex}:0:0:${hex.split(':').map((group) => (0xffff ^ parseInt(group, 16)).toString(16)).join(':')}`, 'Teredo', kind],
    // The local-use NAT64 prefix: where the IPv4 address sits is the network's choice.
    [`64:ff9b:1::${dotted}`, 'local-use NAT64', kind],
  ]))('%s (%s, %s) is never public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['::', false], ['::1', false], ['0:0:0:0:0:0:0:1', false], ['fe80::1%eth0', false], ['fd00:ec2::254', false],
    ['3fff::1', false], ['5f00::1', false], ['0:0:0:1::', false], ['100::1', false], ['2001:db8::1', false],
    ['2606:4700:4700::1111', true], ['2a00:1450:4001:82b::200e', true],
  ] as const)('%s, carrying none, is public: %s', (address, isPublic) => {
    expect(isPublicAddress(address)).toBe(isPublic);
  });
});
