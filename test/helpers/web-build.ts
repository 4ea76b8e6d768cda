import { existsSync, readdirSync, rmSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const web = join(root, 'web');
const out = join(root, 'dist', 'web');

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).filter((name) => name !== 'scripts').map((name) => newest(join(path, name))));
}

/**
 * Vitest's global setup: builds the dashboard into dist/web when it is missing or older than its
 * sources, so that `npm test` on a fresh clone needs no extra step. A build takes a few seconds and
 * happens once; an up-to-date one costs a directory walk. It builds beside the target and then
 * swaps it in, so that a reader never sees a half-written folder.
 */
export default async function setup(): Promise<void> {
  const index = join(out, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newest(web)) return;
  const staging = `${out}-${process.pid}`;
  try {
    const { build } = await import('vite');
    await build({ configFile: join(web, 'vite.config.ts'), logLevel: 'warn', build: { outDir: staging, emptyOutDir: true } });
  } catch (error) {
    // Under CI a dashboard that does not build fails the run; elsewhere its browser tests skip.
    if (process.env.CI) throw error;
    console.warn(`The dashboard could not be built, its browser tests will skip: ${(error as Error).message}`);
    rmSync(staging, { recursive: true, force: true });
    return;
  }
  rmSync(out, { recursive: true, force: true });
  renameSync(staging, out);
}

/** Whether a built dashboard is there to test. */
export const dashboardBuilt = () => existsSync(join(out, 'index.html'));
