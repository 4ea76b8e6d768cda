import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLE_PATH, projectRoot } from './paths.ts';

/**
 * The banner bundle: vanilla-cookieconsent and our adapter, with the library's stylesheet inlined,
 * as one IIFE that reads `__CONSENTRY_CONFIG__`, which the service wraps around it per account.
 * `npm run build` writes it to dist/banner.js; a server that finds no such file builds it in memory.
 */

export async function buildBanner(root = projectRoot()): Promise<string> {
  // Loaded here, not at the top: a server with a built bundle never needs esbuild.
  const { build } = await import('esbuild');
  const css = await build({
    entryPoints: [join(root, 'node_modules', 'vanilla-cookieconsent', 'dist', 'cookieconsent.css')],
    bundle: true,
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  const js = await build({
    entryPoints: [join(root, 'banner', 'src', 'main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2019'],
    platform: 'browser',
    write: false,
    legalComments: 'inline',
    define: { __CONSENTRY_CSS__: JSON.stringify(css.outputFiles[0].text.trim()) },
    logLevel: 'silent',
  });
  return js.outputFiles[0].text;
}

export async function writeBanner(root = projectRoot()): Promise<string> {
  const path = BUNDLE_PATH(root);
  mkdirSync(dirname(path), { recursive: true });
  // Renamed into place: a server reading it meanwhile sees the old file or the new one, never half.
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, await buildBanner(root));
  renameSync(partial, path);
  return path;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeBanner();
}
