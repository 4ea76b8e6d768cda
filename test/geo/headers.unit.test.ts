import { describe, expect, it } from 'vitest';
import { lookupAddress } from '../../src/geo/client-address.ts';
import { locationFromHeaders } from '../../src/geo/headers.ts';

describe('locationFromHeaders', () => {
  const cloudflare = { country: 'cf-ipcountry' };
  const vercel = { country: 'x-vercel-ip-country', region: 'x-vercel-ip-country-region' };

  it('reads the configured country header, and the region header with it as `CA` or `US-CA`', () => {
    expect(locationFromHeaders({ 'cf-ipcountry': 'DE' }, cloudflare)).toEqual({ country: 'DE', region: null });
    expect(locationFromHeaders({ 'x-vercel-ip-country': 'US', 'x-vercel-ip-country-region': 'CA' }, vercel)).toEqual({ country: 'US', region: 'US-CA' });
    expect(locationFromHeaders({ 'x-vercel-ip-country': 'us', 'x-vercel-ip-country-region': 'us-ca' }, vercel)).toEqual({ country: 'US', region: 'US-CA' });
    expect(locationFromHeaders({ 'x-vercel-ip-country': 'DE', 'x-vercel-ip-country-region': 'BY' }, vercel)).toEqual({ country: 'DE', region: 'DE-BY' });
  });

  it('finds the header whatever the case it was configured in', () => {
    expect(locationFromHeaders({ 'cf-ipcountry': 'FR' }, { country: 'CF-IPCountry' })).toEqual({ country: 'FR', region: null });
  });

  it('ignores a country that is none (XX: unknown, T1: Tor) or junk, and the region with it', () => {
    for (const junk of ['XX', 'T1', 'A1', 'EU', 'UK', '', 'USA', 'D E', '<script>']) {
      expect(locationFromHeaders({ 'x-vercel-ip-country': junk, 'x-vercel-ip-country-region': 'CA' }, vercel)).toBeNull();
    }
    expect(locationFromHeaders({}, cloudflare)).toBeNull();
  });

  it('keeps the country but drops a region that is not one of it', () => {
    const region = (value: string) => locationFromHeaders({ 'x-vercel-ip-country': 'US', 'x-vercel-ip-country-region': value }, vercel);
    expect(region('ZZ')).toEqual({ country: 'US', region: null });
    expect(region('DE-BY')).toEqual({ country: 'US', region: null });
    expect(region('California')).toEqual({ country: 'US', region: null });
    expect(region('PR')).toEqual({ country: 'PR', region: null });
  });

  it('believes no header sent twice', () => {
    expect(locationFromHeaders({ 'cf-ipcountry': 'DE, US' }, cloudflare)).toBeNull();
    expect(locationFromHeaders({ 'cf-ipcountry': ['DE', 'US'] }, cloudflare)).toBeNull();
  });

  it('reads no header that was not configured', () => {
    expect(locationFromHeaders({ 'cf-ipcountry': 'DE', 'x-vercel-ip-country': 'US' }, {})).toBeNull();
    expect(locationFromHeaders({ 'x-vercel-ip-country': 'US', 'x-vercel-ip-country-region': 'CA' }, { country: 'x-vercel-ip-country' })).toEqual({ country: 'US', region: null });
  });
});

describe('lookupAddress', () => {
  it('keeps IPv4 and IPv6, without brackets or zone', () => {
    expect(lookupAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(lookupAddress('2001:DB8::1')).toBe('2001:db8::1');
    expect(lookupAddress('[2001:db8::1]')).toBe('2001:db8::1');
    expect(lookupAddress('fe80::1%eth0')).toBe('fe80::1');
  });

  it('gives the IPv4 address an IPv4-mapped IPv6 address carries, in any spelling', () => {
    expect(lookupAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(lookupAddress('::FFFF:cb00:7107')).toBe('203.0.113.7');
    expect(lookupAddress('0:0:0:0:0:ffff:8.8.8.8')).toBe('8.8.8.8');
    expect(lookupAddress('::ffff:0:808:808')).toBe('::ffff:0:808:808');
    expect(lookupAddress('64:ff9b::808:808')).toBe('64:ff9b::808:808');
  });

  it('gives nothing for what is no address', () => {
    for (const wrong of [undefined, null, '', 'junk', '1.2.3', '256.1.1.1', '::ffff:1.2.3.999', '8.8.8.8:443']) expect(lookupAddress(wrong)).toBeNull();
  });
});
