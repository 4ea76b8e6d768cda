import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, isCountryCode } from '../../src/geo/country-codes.ts';
import { US_PRIVACY_LAWS, US_PRIVACY_LAWS_REVIEWED, usPrivacyStates } from '../../src/geo/us-privacy-laws.ts';
import { canonicalLocation, canonicalRegion, EU_MEMBER_STATES, expandRegions, REGION_GROUPS, regionCovers } from '../../src/geo/regions.ts';
import { US_STATES, usStateByName } from '../../src/geo/us-states.ts';

const day = (iso: string) => new Date(`${iso}T12:00:00Z`);
const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
const nameOf = (code: string) => {
  try {
    return names.of(code);
  } catch {
    return undefined;
  }
};

describe('country codes', () => {
  it('are the 249 assigned ISO 3166-1 codes and XK, each a region the runtime can name', () => {
    expect(COUNTRY_CODES.size).toBe(250);
    expect([...COUNTRY_CODES].filter((code) => !nameOf(code))).toEqual([]);
  });

  it('leave out only codes that are reserved, withdrawn or no country', () => {
    // Every two-letter code the runtime's CLDR names, which the list does not hold: each must be one
    // ISO 3166 reserves or withdrew (or CLDR's own); a new one would need a look at the list.
    const notAssigned = 'AC AN BU CP CQ CS DD DG DY EA EU EZ FX HV IC NH QO RH SU TA TP UK UN VD XA XB YD YU ZR ZZ'.split(' ');
    const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
    const namedButMissing = letters.flatMap((a) => letters.map((b) => a + b)).filter((code) => !COUNTRY_CODES.has(code) && nameOf(code));
    expect(namedButMissing.filter((code) => !notAssigned.includes(code))).toEqual([]);
  });

  it('refuse what CDNs and old databases send for no country', () => {
    for (const junk of ['XX', 'T1', 'A1', 'A2', 'O1', 'AP', 'EU', 'UK', 'ZZ', 'us', '', 'USA']) expect(isCountryCode(junk)).toBe(false);
  });
});

describe('region codes', () => {
  it('are read in any case and written canonically', () => {
    expect(canonicalRegion(' de ')).toBe('DE');
    expect(canonicalRegion('us-ca')).toBe('US-CA');
    expect(canonicalRegion('eea')).toBe('EEA');
    expect(canonicalRegion('US-Privacy-States')).toBe('US-PRIVACY-STATES');
  });

  it('take US subdivisions strictly: the states and DC, the outlying areas as their countries', () => {
    expect(Object.keys(US_STATES)).toHaveLength(51);
    expect(canonicalRegion('US-DC')).toBe('US-DC');
    expect(canonicalRegion('US-WY')).toBe('US-WY');
    expect(canonicalRegion('US-PR')).toBe('PR');
    expect(canonicalRegion('US-GU')).toBe('GU');
    for (const wrong of ['US-XX', 'US-C', 'US-CAL', 'US-']) expect(canonicalRegion(wrong)).toBeNull();
  });

  it("take other countries' subdivisions by their form", () => {
    expect(canonicalRegion('CA-QC')).toBe('CA-QC');
    expect(canonicalRegion('DE-BY')).toBe('DE-BY');
    expect(canonicalRegion('GB-ENG')).toBe('GB-ENG');
    expect(canonicalRegion('FR-75C')).toBe('FR-75C');
    for (const wrong of ['XX-AB', 'DE-BAYERN', 'DE-', 'DE_BY', 'UK-ENG', 'EU-DE']) expect(canonicalRegion(wrong)).toBeNull();
  });

  it('refuse what is no country, subdivision or group', () => {
    for (const wrong of ['XX', 'UK', 'EUROPE', 'GDPR', 'E U', '', 'US PRIVACY STATES']) expect(canonicalRegion(wrong)).toBeNull();
  });
});

describe('groups', () => {
  it('EU: the 27 member states and their parts that geolocation reports apart', () => {
    expect(EU_MEMBER_STATES).toHaveLength(27);
    const eu = REGION_GROUPS.EU(new Date());
    expect(eu).toEqual(expect.arrayContaining(['DE', 'FR', 'GR', 'HR', 'RE', 'GF', 'AX']));
    for (const outside of ['GB', 'CH', 'NO', 'IS', 'LI', 'GL', 'NC', 'AW', 'BL']) expect(eu).not.toContain(outside);
  });

  it('EEA: the EU and Iceland, Liechtenstein and Norway', () => {
    const eea = REGION_GROUPS.EEA(new Date());
    expect(eea).toEqual(expect.arrayContaining([...REGION_GROUPS.EU(new Date()), 'IS', 'LI', 'NO']));
    expect(eea).toHaveLength(REGION_GROUPS.EU(new Date()).length + 3);
    expect(eea).not.toContain('CH');
    expect(eea).not.toContain('GB');
  });

  it('US-PRIVACY-STATES: the states whose law is in force on the day', () => {
    expect(usPrivacyStates(day('2019-12-31'))).toEqual([]);
    expect(usPrivacyStates(day('2020-01-01'))).toEqual(['US-CA']);
    const end2025 = usPrivacyStates(day('2025-12-31'));
    expect(end2025).toHaveLength(16);
    expect(end2025).not.toContain('US-IN');
    const start2026 = usPrivacyStates(day('2026-01-01'));
    expect(start2026).toEqual([...end2025, 'US-IN', 'US-KY', 'US-RI']);
    expect(usPrivacyStates(day('2027-01-01'))).toEqual([...start2026, 'US-OK', 'US-LA']);
    expect(usPrivacyStates(day('2028-01-01'))).toHaveLength(US_PRIVACY_LAWS.length);
  });

  it('the law table names real states once each, with a day, a name and a source', () => {
    const regions = US_PRIVACY_LAWS.map((law) => law.region);
    expect(new Set(regions).size).toBe(regions.length);
    for (const law of US_PRIVACY_LAWS) {
      expect(Object.hasOwn(US_STATES, law.region)).toBe(true);
      expect(law.effective).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(new Date(`${law.effective}T00:00:00Z`).toISOString().slice(0, 10)).toBe(law.effective);
      expect(law.name.length).toBeGreaterThan(10);
      expect(law.source.length).toBeGreaterThan(10);
    }
    expect([...US_PRIVACY_LAWS].sort((a, b) => a.effective.localeCompare(b.effective))).toEqual(US_PRIVACY_LAWS);
    expect(new Date(`${US_PRIVACY_LAWS_REVIEWED}T00:00:00Z`).toISOString().slice(0, 10)).toBe(US_PRIVACY_LAWS_REVIEWED);
  });

  it('expand to the countries and subdivisions they stand for, each once', () => {
    expect(expandRegions(['GB', 'CH', 'GB'], new Date())).toEqual(['GB', 'CH']);
    expect(expandRegions(['EEA', 'DE'], new Date())).toEqual(REGION_GROUPS.EEA(new Date()));
    expect(expandRegions(['US-PRIVACY-STATES', 'US-CA'], day('2023-01-01'))).toEqual(['US-CA', 'US-VA']);
  });
});

describe('coverage', () => {
  const at = new Date('2026-12-06T00:00:00Z');
  const cover = (code: string, country: string | null, region: string | null = null) => regionCovers(code, { country, region }, at);

  it('a country covers all of it, with or without a known subdivision', () => {
    expect(cover('US', 'US')).toBe(true);
    expect(cover('US', 'US', 'US-CA')).toBe(true);
    expect(cover('US', 'PR')).toBe(false);
    expect(cover('DE', 'AT')).toBe(false);
  });

  it('a subdivision covers only itself, and nobody whose subdivision is not known', () => {
    expect(cover('US-CA', 'US', 'US-CA')).toBe(true);
    expect(cover('US-CA', 'US', 'US-NY')).toBe(false);
    expect(cover('US-CA', 'US')).toBe(false);
  });

  it('a group covers its members', () => {
    expect(cover('EEA', 'NO')).toBe(true);
    expect(cover('EEA', 'CH')).toBe(false);
    expect(cover('US-PRIVACY-STATES', 'US', 'US-VA')).toBe(true);
    expect(cover('US-PRIVACY-STATES', 'US', 'US-NY')).toBe(false);
    expect(cover('US-PRIVACY-STATES', 'US')).toBe(false);
    expect(regionCovers('US-PRIVACY-STATES', { country: 'US', region: 'US-OK' }, at)).toBe(false);
    expect(regionCovers('US-PRIVACY-STATES', { country: 'US', region: 'US-OK' }, new Date('2027-01-01T00:00:00Z'))).toBe(true);
  });

  it('nothing covers an unknown visitor', () => {
    expect(cover('EEA', null)).toBe(false);
  });
});

describe('locations', () => {
  it('are made canonical, keeping only a subdivision of the country', () => {
    expect(canonicalLocation('us', 'ca')).toEqual({ country: 'US', region: 'US-CA' });
    expect(canonicalLocation('US', 'US-CA')).toEqual({ country: 'US', region: 'US-CA' });
    expect(canonicalLocation('US', 'DE-BY')).toEqual({ country: 'US', region: null });
    expect(canonicalLocation('US', 'XX')).toEqual({ country: 'US', region: null });
    expect(canonicalLocation('DE', 'BY')).toEqual({ country: 'DE', region: 'DE-BY' });
    expect(canonicalLocation('DE', 'Bayern')).toEqual({ country: 'DE', region: null });
    expect(canonicalLocation('GB', null)).toEqual({ country: 'GB', region: null });
  });

  it('put a US outlying area in its own country, and drop an unknown country altogether', () => {
    expect(canonicalLocation('US', 'PR')).toEqual({ country: 'PR', region: null });
    expect(canonicalLocation('XX', 'CA')).toEqual({ country: null, region: null });
    expect(canonicalLocation(undefined, 'US-CA')).toEqual({ country: null, region: null });
  });

  it('name US states from the names databases write', () => {
    expect(usStateByName('California')).toBe('US-CA');
    expect(usStateByName('district of columbia')).toBe('US-DC');
    expect(usStateByName('New York ')).toBe('US-NY');
    expect(usStateByName('Ontario')).toBeNull();
  });
});
