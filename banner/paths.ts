import { createHash } from 'node:crypto';
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

/** Where `npm run build` writes the banner bundle for accounts with TCF on: the same with its TCF blocks (banner/build.ts). */
export const BUNDLE_TCF_PATH = (root = projectRoot()) => join(root, 'dist', 'banner-tcf.js');

/** Where `npm run build` writes the GPP file, which the banner loads only in opt-out regions. */
export const GPP_CHUNK_PATH = (root = projectRoot()) => join(root, 'dist', 'gpp.js');

/**
 * The name the GPP file is served under (`/widget/gpp.<hash>.js`): its content's hash, so that a
 * browser may keep it for good and a new build is a new name. The build writes it into the banner;
 * the service derives it again from the file it serves.
 */
export const gppChunkName = (code: string) => `gpp.${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`;

/** Where `npm run build` writes the extras file (the declaration and the placeholders), loaded only by pages that use them. */
export const EXTRAS_CHUNK_PATH = (root = projectRoot()) => join(root, 'dist', 'extras.js');

/** The name the extras file is served under (`/widget/extras.<hash>.js`), as the GPP file's. */
export const extrasChunkName = (code: string) => `extras.${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`;

/** Where `npm run build` writes the TCF file, which the banner of a TCF account loads only in opt-in regions. */
export const TCF_CHUNK_PATH = (root = projectRoot()) => join(root, 'dist', 'tcf.js');

/** The name the TCF file is served under (`/widget/tcf.<hash>.js`): its content's hash, as for the GPP file. */
export const tcfChunkName = (code: string) => `tcf.${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`;
