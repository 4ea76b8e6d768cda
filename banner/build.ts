import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { BUNDLE_PATH, EXTRAS_CHUNK_PATH, extrasChunkName, GPP_CHUNK_PATH, gppChunkName, projectRoot } from './paths.ts';

/** The banner as built: its bundle, and the GPP file it loads in opt-out regions under `name`. */
export interface BuiltBundles {
  banner: string;
  gpp: { name: string; code: string };
  /** The declaration and the placeholders of embedded content (banner/src/extras.ts). */
  extras: { name: string; code: string };
}

/** The global the GPP file's IIFE leaves its exports in, for the banner to pick up (see banner/src/gpp.ts). */
export const GPP_GLOBAL = '__consentryGpp';
/** The same for the extras file (banner/src/extras.ts). */
export const EXTRAS_GLOBAL = '__consentryExtras';

/**
 * The banner bundle: vanilla-cookieconsent and our adapter, with the library's stylesheet inlined,
 * as one IIFE that reads `__CONSENTRY_CONFIG__`, which the service wraps around it per account; and
 * beside it the GPP file (the IAB's `@iabgpp/cmpapi`, banner/src/gpp-chunk.ts), a separate IIFE
 * whose content-hashed name the bundle carries. `npm run build` writes both to dist/; a server that
 * finds them missing builds them in memory.
 */
export async function buildBanner(root = projectRoot()): Promise<BuiltBundles> {
  // Loaded here, not at the top: a server with a built bundle never needs esbuild.
  const { build } = await import('esbuild');
  const common = {
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2019'],
    platform: 'browser',
    write: false,
    legalComments: 'inline',
    logLevel: 'silent',
  } satisfies BuildOptions;
  const [css, gpp, extras] = await Promise.all([
    build({
      entryPoints: [join(root, 'node_modules', 'vanilla-cookieconsent', 'dist', 'cookieconsent.css')],
      bundle: true,
      minify: true,
      write: false,
      logLevel: 'silent',
    }),
    build({ ...common, entryPoints: [join(root, 'banner', 'src', 'gpp-chunk.ts')], globalName: GPP_GLOBAL }),
    build({ ...common, entryPoints: [join(root, 'banner', 'src', 'extras-chunk.ts')], globalName: EXTRAS_GLOBAL }),
  ]);
  const extrasCode = extras.outputFiles[0].text;
  const gppCode = gpp.outputFiles[0].text;
  const name = gppChunkName(gppCode);
  const js = await build({
    ...common,
    entryPoints: [join(root, 'banner', 'src', 'main.ts')],
    define: {
      __CONSENTRY_CSS__: JSON.stringify(css.outputFiles[0].text.trim()),
      __CONSENTRY_GPP_CHUNK__: JSON.stringify(name),
      __CONSENTRY_GPP_GLOBAL__: JSON.stringify(GPP_GLOBAL),
      __CONSENTRY_EXTRAS_CHUNK__: JSON.stringify(extrasChunkName(extrasCode)),
      __CONSENTRY_EXTRAS_GLOBAL__: JSON.stringify(EXTRAS_GLOBAL),
    },
  });
  return { banner: js.outputFiles[0].text, gpp: { name, code: gppCode }, extras: { name: extrasChunkName(extrasCode), code: extrasCode } };
}

/** Writes `text` to `path`, renamed into place: a server reading it meanwhile sees the old file or the new one, never half. */
function replace(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, text);
  renameSync(partial, path);
}

export async function writeBanner(root = projectRoot()): Promise<string> {
  const built = await buildBanner(root);
  // The GPP and extras files first: a banner that names them is never on disk without them.
  replace(GPP_CHUNK_PATH(root), built.gpp.code);
  replace(EXTRAS_CHUNK_PATH(root), built.extras.code);
  replace(BUNDLE_PATH(root), built.banner);
  return BUNDLE_PATH(root);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeBanner();
}
