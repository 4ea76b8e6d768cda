import { describe, expect, it } from 'vitest';
import { maskIp } from '../../../src/modules/consents/ip-mask.ts';

describe('maskIp', () => {
  it('zeroes the last IPv4 octet, also when mapped into IPv6', () => {
    expect(maskIp('203.0.113.77')).toBe('203.0.113.0');
    expect(maskIp('::ffff:198.51.100.9')).toBe('198.51.100.0');
  });

  it('keeps only the first 48 bits of IPv6', () => {
    expect(maskIp('2001:db8:85a3:8d3:1319:8a2e:370:7348')).toBe('2001:db8:85a3::');
    expect(maskIp('2001:db8::1')).toBe('2001:db8:0::');
    expect(maskIp('::1')).toBe('0:0:0::');
    expect(maskIp('fe80::1%eth0')).toBe('fe80:0:0::');
  });

  it('stores nothing for what is not an address', () => {
    expect(maskIp(undefined)).toBeNull();
    expect(maskIp('not an ip')).toBeNull();
    expect(maskIp('1.2.3')).toBeNull();
  });
});
