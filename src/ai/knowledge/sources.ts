import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * The maintained data the AI knows from, read from the npm packages that ship it (nothing is
 * downloaded at install or run time; `npm update` brings newer data):
 * - the Open Cookie Database (Apache-2.0), as shipped inside `@slashgear/gdpr-cookie-scanner` (MIT);
 * - `third-party-web` (MIT): third-party domains, the entity behind them and its category.
 */

/** One row of the Open Cookie Database. A wildcard row's `cookie` is a prefix (`_ga_`). */
export interface OpenCookieDatabaseRow {
  platform: string;
  category: string;
  cookie: string;
  domain: string;
  description: string;
  retentionPeriod: string;
  dataController: string;
  wildcardMatch: string;
}

export interface ThirdPartyEntity {
  name: string;
  company?: string;
  category: string;
  domains: string[];
}

const require = createRequire(import.meta.url);

/** A file inside an installed package, found without going through the package's `exports`. */
function packageFile(name: string, file: string): string {
  for (const dir of require.resolve.paths(name) ?? []) {
    const candidate = join(dir, name, file);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} is not installed (needed for ${file}); run npm install`);
}

export function loadOpenCookieDatabase(): OpenCookieDatabaseRow[] {
  const path = packageFile('@slashgear/gdpr-cookie-scanner', 'dist/data/open-cookie-database.json');
  const byPlatform = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Array<Omit<OpenCookieDatabaseRow, 'platform'>>>;
  return Object.entries(byPlatform).flatMap(([platform, rows]) => rows.map((row) => ({ ...row, platform })));
}

export function loadThirdPartyWeb(): ThirdPartyEntity[] {
  return JSON.parse(readFileSync(packageFile('third-party-web', 'dist/entities-nostats.json'), 'utf8')) as ThirdPartyEntity[];
}
