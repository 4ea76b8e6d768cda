import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root, from wherever this code runs: banner/, src/ through tsx, or bundled in dist/ (maybe without sources). */
export function projectRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'banner', 'src', 'main.ts')) || existsSync(join(dir, 'dist', 'banner.js'))) return dir;
    if (dirname(dir) === dir) throw new Error(`banner sources not found above ${from}`);
  }
}

/** Where `npm run build` writes the banner bundle. */
export const BUNDLE_PATH = (root = projectRoot()) => join(root, 'dist', 'banner.js');
