import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('geolocation settings', () => {
  it('are off by default: no header believed, the shipped database', () => {
    const config = loadConfig({});
    expect(config.geoCountryHeader).toBeUndefined();
    expect(config.geoRegionHeader).toBeUndefined();
    expect(config.geoipFiles).toBeUndefined();
    expect(config.geoipDisabled).toBe(false);
  });

  it('name headers in lower case, as requests carry them', () => {
    const config = loadConfig({ GEO_COUNTRY_HEADER: 'CloudFront-Viewer-Country', GEO_REGION_HEADER: ' CloudFront-Viewer-Country-Region ' });
    expect(config.geoCountryHeader).toBe('cloudfront-viewer-country');
    expect(config.geoRegionHeader).toBe('cloudfront-viewer-country-region');
    expect(() => loadConfig({ GEO_COUNTRY_HEADER: 'cf ipcountry' })).toThrow('GEO_COUNTRY_HEADER must be a header name such as cf-ipcountry (got "cf ipcountry")');
    expect(() => loadConfig({ GEO_COUNTRY_HEADER: 'cf-ipcountry:' })).toThrow('GEO_COUNTRY_HEADER must be a header name');
  });

  it('believe a region header only with a country header', () => {
    expect(() => loadConfig({ GEO_REGION_HEADER: 'x-vercel-ip-country-region' })).toThrow('GEO_REGION_HEADER is believed only with GEO_COUNTRY_HEADER: set both');
  });

  it('take one database file or several, or none at all', () => {
    expect(loadConfig({ GEOIP_FILE: '/data/GeoLite2-City.mmdb' }).geoipFiles).toEqual(['/data/GeoLite2-City.mmdb']);
    expect(loadConfig({ GEOIP_FILE: '/data/dbip-ipv4.mmdb, /data/dbip-ipv6.mmdb' }).geoipFiles).toEqual(['/data/dbip-ipv4.mmdb', '/data/dbip-ipv6.mmdb']);
    expect(() => loadConfig({ GEOIP_FILE: '/data/a.mmdb,' })).toThrow('GEOIP_FILE must be a path, or paths separated by commas');
    expect(loadConfig({ GEOIP_DISABLED: 'true' }).geoipDisabled).toBe(true);
    expect(() => loadConfig({ GEOIP_FILE: '/data/a.mmdb', GEOIP_DISABLED: 'true' })).toThrow('GEOIP_FILE and GEOIP_DISABLED=true cannot both be set');
    expect(() => loadConfig({ GEOIP_DISABLED: 'maybe' })).toThrow('GEOIP_DISABLED must be true or false');
  });
});
