import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

export class DataDirInUseError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded database belongs to one process at a time. A lock file holding the owner's pid
 * makes a second process (the CLI beside a running server) refuse instead of corrupting the data.
 */
export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const lockPath = join(dir, 'consentry.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new DataDirInUseError(
          `The embedded database in ${dir} is in use by process ${owner} (a running Consentry server). ` +
            'Stop that process first, or run both against PostgreSQL by setting DATABASE_URL.',
        );
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirInUseError(`Could not lock the embedded database in ${dir}`);
}
