import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * The maintained data the AI knows from (nothing is downloaded at install or run time):
 * - the Open Cookie Database (Apache-2.0), vendored unchanged in `data/` with its licence notice;
 * - `third-party-web` (MIT, an npm dependency): third-party domains, the entity behind them and its category.
 * The project's own cited registry (`registry.ts`) is checked before both.
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

/**
 * A file of `src/ai/knowledge/data/`, from the sources (tsx) or from the bundle in `dist/`, which
 * reads it from the sources beside it rather than carrying a megabyte of JSON in its code.
 */
export function dataFile(file: string): URL {
  for (const candidate of [new URL(`./data/${file}`, import.meta.url), new URL(`../src/ai/knowledge/data/${file}`, import.meta.url)]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`src/ai/knowledge/data/${file} is missing`);
}

export function loadOpenCookieDatabase(): OpenCookieDatabaseRow[] {
  const path = dataFile('open-cookie-database.json');
  const byPlatform = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Array<Omit<OpenCookieDatabaseRow, 'platform'>>>;
  return Object.entries(byPlatform).flatMap(([platform, rows]) => rows.map((row) => ({ ...row, platform })));
}

export function loadThirdPartyWeb(): ThirdPartyEntity[] {
  return JSON.parse(readFileSync(packageFile('third-party-web', 'dist/entities-nostats.json'), 'utf8')) as ThirdPartyEntity[];
}
