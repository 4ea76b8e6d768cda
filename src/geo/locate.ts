import { lookupAddress } from './client-address.ts';
import { GeoDatabase, GeoDatabaseError } from './geoip.ts';
import { locationFromHeaders, type GeoHeaderNames, type RequestHeaders } from './headers.ts';
import type { VisitorLocation } from './regions.ts';

/** What a request gives to locate its visitor: a Fastify request is one (`ip` honours TRUST_PROXY). */
export interface LocateInput {
  ip?: string;
  headers: RequestHeaders;
}

/** A location and where it came from: `header` (the CDN's, perhaps with the database's region), `database`, or `none`. */
export interface LocatedVisitor extends VisitorLocation {
  source: 'header' | 'database' | 'none';
}

export interface LocatorOptions {
  /** The trusted headers (GEO_COUNTRY_HEADER, GEO_REGION_HEADER); none configured: none read. */
  headers?: GeoHeaderNames;
  /** mmdb files to look addresses up in (GEOIP_FILE, else `shippedDatabaseFiles()`); null: none (GEOIP_DISABLED). */
  databaseFiles: readonly string[] | null;
  /** Told once per distinct problem when a database cannot be used; the visitor is then located without it. */
  onDatabaseError?: (error: GeoDatabaseError) => void;
}

export interface Locator {
  locate(input: LocateInput): Promise<LocatedVisitor>;
}

/**
 * Locates visitors, in order: the trusted headers when configured (the database completing a missing
 * region when it agrees on the country); else the database, by the client's address; else unknown.
 * The address is only looked up: never kept, logged, or put in an error.
 */
export function createLocator(options: LocatorOptions): Locator {
  const names = options.headers ?? {};
  const database = options.databaseFiles && options.databaseFiles.length > 0 ? new GeoDatabase(options.databaseFiles) : null;
  const reported = new Set<string>();

  async function lookup(ip: string | undefined): Promise<VisitorLocation | null> {
    const address = lookupAddress(ip);
    if (database === null || address === null) return null;
    try {
      return await database.lookup(address);
    } catch (error) {
      if (!(error instanceof GeoDatabaseError)) throw error;
      if (!reported.has(error.message)) {
        reported.add(error.message);
        options.onDatabaseError?.(error);
      }
      return null;
    }
  }

  return {
    async locate(input) {
      const told = names.country ? locationFromHeaders(input.headers, names) : null;
      if (told !== null && told.region !== null) return { ...told, source: 'header' };
      const found = await lookup(input.ip);
      if (told !== null) {
        return { country: told.country, region: found?.country === told.country ? found.region : null, source: 'header' };
      }
      return found ? { ...found, source: 'database' } : { country: null, region: null, source: 'none' };
    },
  };
}
