import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    builtEntries: string;
  }
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Vitest's global setup: the server, the CLI and the crawl worker bundled from the current sources
 * with the options of `npm run build:server` (`npm start` runs that bundle), into a folder of this
 * run under dist/. The tests that run them as child processes start them from here: under tsx every
 * start transpiled the whole of src/ again, most of a second of CPU per process.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  // Vitest runs a global setup for the root project and again for each project, which inherits
  // what the root provides: one build serves them all.
  if (!project.isRootProject()) return undefined;
  mkdirSync(join(root, 'dist'), { recursive: true });
  const outdir = mkdtempSync(join(root, 'dist', 'test-entries-'));
  await build({
    entryPoints: ['src/server.ts', 'src/cli.ts', 'src/scanner/crawl-worker.ts'].map((entry) => join(root, entry)),
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    outdir,
    entryNames: '[name]',
  });
  project.provide('builtEntries', outdir);
  return () => rmSync(outdir, { recursive: true, force: true });
}

/** The node arguments that run one of the bundled entry points. */
export function builtEntry(name: 'server' | 'cli'): string[] {
  return ['--enable-source-maps', join(inject('builtEntries'), `${name}.js`)];
}
