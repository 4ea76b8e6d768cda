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

/**
 * The files the banner loads only when it needs them, the same for every account: `gpp` (the IAB's
 * `@iabgpp/cmpapi`, in opt-out regions), `extras` (the cookie declaration and the placeholders of
 * embedded content, on pages that use them) and `tcf` (the TCF framework and screens, for accounts
 * with TCF on, in opt-in regions).
 */
export const CHUNKS = ['gpp', 'extras', 'tcf'] as const;
export type Chunk = (typeof CHUNKS)[number];

/** Where `npm run build` writes a chunk file. */
export const chunkPath = (chunk: Chunk, root = projectRoot()) => join(root, 'dist', `${chunk}.js`);

/**
 * The name a chunk file is served under (`/widget/gpp.<hash>.js`): its content's hash, so that a
 * browser may keep it for good and a new build is a new name. The build writes it into the banner;
 * the service derives it again from the file it serves.
 */
export const chunkName = (chunk: Chunk, code: string) => `${chunk}.${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`;
