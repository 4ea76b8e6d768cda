import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Plugin } from 'esbuild';
import { BUNDLE_PATH, BUNDLE_TCF_PATH, chunkName, chunkPath, CHUNKS, projectRoot, type Chunk } from './paths.ts';

/** The banner as built: its bundles (without and with TCF), and the files they load under `name`. */
export interface BuiltBundles {
  banner: string;
  /** The banner of accounts with TCF on: the same sources with their TCF blocks (see withoutTcf). */
  bannerTcf: string;
  /** The files the bundles load when they need them (banner/paths.ts), by their names. */
  chunks: Record<Chunk, { name: string; code: string }>;
}

/** The global the GPP file's IIFE leaves its exports in, for the banner to pick up (see banner/src/gpp.ts). */
export const GPP_GLOBAL = '__consentryGpp';
/** The same for the extras file (banner/src/extras.ts). */
export const EXTRAS_GLOBAL = '__consentryExtras';

/** The global the TCF file's IIFE leaves its exports in (see banner/src/tcf.ts). */
export const TCF_GLOBAL = '__consentryTcf';

/**
 * A block of the banner's sources between `/* tcf *\/` and `/* /tcf *\/` is what accounts with TCF
 * on need (the `__tcfapi` stub, the TCF file's loader, the hooks the TCF screens use): the banner of
 * the other accounts is built without these blocks, from text that is then exactly what it was
 * before TCF, so that their script stays the same bytes (esbuild's minifier names variables by the
 * characters of the whole source: a dead branch left in would rename them).
 */
export const TCF_BLOCK = /\/\* tcf \*\/[\s\S]*?\/\* \/tcf \*\//g;

/**
 * The library's stylesheet for our banner: without the rules of the preferences modal's `bar`
 * layout (`pm--bar`, its `wide` variant and `left`/`right` sides), which the banner never uses
 * (banner/src/modal-content.ts: always `box`). 2.3 KB of 32 KB, 223 bytes gzip of the script
 * (measured 2026-12-06). A selector naming one of them is dropped, and a rule left with none.
 */
export function withoutUnusedLayouts(css: string): string {
  const unused = /\.pm--(bar|wide|left|right)\b/;
  let out = '';
  for (let at = 0; at < css.length; ) {
    const open = css.indexOf('{', at);
    if (open < 0) return out + css.slice(at);
    let close = open + 1;
    for (let depth = 1; depth > 0; close++) depth += css[close] === '{' ? 1 : css[close] === '}' ? -1 : 0;
    const prelude = css.slice(at, open);
    const body = css.slice(open + 1, close - 1);
    if (prelude.startsWith('@media') || prelude.startsWith('@supports')) {
      const kept = withoutUnusedLayouts(body);
      if (kept) out += `${prelude}{${kept}}`;
    } else if (prelude.startsWith('@')) {
      out += `${prelude}{${body}}`;
    } else {
      // The library's selectors have no comma inside parentheses (test/modules/widget/banner-stylesheet.unit.test.ts).
      const selectors = prelude.split(',').filter((selector) => !unused.test(selector));
      if (selectors.length > 0) out += `${selectors.join(',')}{${body}}`;
    }
    at = close;
  }
  return out;
}

export const withoutTcf = (root: string): Plugin => ({
  name: 'consentry-without-tcf',
  setup(build) {
    const sources = join(root, 'banner', 'src');
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(sources)) return undefined;
      return { contents: (await readFile(args.path, 'utf8')).replace(TCF_BLOCK, ''), loader: 'ts' };
    });
  },
});

/**
 * The banner bundle: vanilla-cookieconsent and our adapter, with the library's stylesheet inlined,
 * as one IIFE that reads `__CONSENTRY_CONFIG__`, which the service wraps around it per account; and
 * beside it the GPP file (the IAB's `@iabgpp/cmpapi`, banner/src/gpp-chunk.ts), a separate IIFE
 * whose content-hashed name the bundle carries. For accounts with TCF on, a second bundle with the
 * `__tcfapi` stub, and the TCF file it loads in opt-in regions (the IAB's `@iabtechlabtcf/cmpapi` and
 * `core`, and the TCF screens: banner/src/tcf-chunk.ts). `npm run build` writes them to dist/; a
 * server that finds them missing builds them in memory.
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
  const [css, gpp, extras, tcf] = await Promise.all([
    build({
      entryPoints: [join(root, 'node_modules', 'vanilla-cookieconsent', 'dist', 'cookieconsent.css')],
      bundle: true,
      minify: true,
      write: false,
      logLevel: 'silent',
    }),
    build({ ...common, entryPoints: [join(root, 'banner', 'src', 'gpp-chunk.ts')], globalName: GPP_GLOBAL }),
    build({ ...common, entryPoints: [join(root, 'banner', 'src', 'extras-chunk.ts')], globalName: EXTRAS_GLOBAL }),
    build({ ...common, entryPoints: [join(root, 'banner', 'src', 'tcf-chunk.ts')], globalName: TCF_GLOBAL }),
  ]);
  const named = (chunk: Chunk, code: string) => ({ name: chunkName(chunk, code), code });
  const chunks = { gpp: named('gpp', gpp.outputFiles[0].text), extras: named('extras', extras.outputFiles[0].text), tcf: named('tcf', tcf.outputFiles[0].text) };
  const banner = {
    ...common,
    entryPoints: [join(root, 'banner', 'src', 'main.ts')],
    define: {
      __CONSENTRY_CSS__: JSON.stringify(withoutUnusedLayouts(css.outputFiles[0].text.trim())),
      __CONSENTRY_GPP_CHUNK__: JSON.stringify(chunks.gpp.name),
      __CONSENTRY_GPP_GLOBAL__: JSON.stringify(GPP_GLOBAL),
      __CONSENTRY_EXTRAS_CHUNK__: JSON.stringify(chunks.extras.name),
      __CONSENTRY_EXTRAS_GLOBAL__: JSON.stringify(EXTRAS_GLOBAL),
      __CONSENTRY_TCF_CHUNK__: JSON.stringify(chunks.tcf.name),
      __CONSENTRY_TCF_GLOBAL__: JSON.stringify(TCF_GLOBAL),
    },
  } satisfies BuildOptions;
  const [js, jsTcf] = await Promise.all([build({ ...banner, plugins: [withoutTcf(root)] }), build(banner)]);
  return {
    banner: js.outputFiles[0].text,
    bannerTcf: jsTcf.outputFiles[0].text,
    chunks,
  };
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
  // The files the banners name first: a banner that names them is never on disk without them.
  for (const chunk of CHUNKS) replace(chunkPath(chunk, root), built.chunks[chunk].code);
  replace(BUNDLE_TCF_PATH(root), built.bannerTcf);
  replace(BUNDLE_PATH(root), built.banner);
  return BUNDLE_PATH(root);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeBanner();
}
