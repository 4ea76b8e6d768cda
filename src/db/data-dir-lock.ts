import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fsExt from 'fs-ext';
import { ConfigError } from '../config.ts';

export class DataDirInUseError extends Error {}

/** The pid its holder wrote into the lock file, when it wrote one. */
function holderOf(lockPath: string): number | undefined {
  try {
    const pid = Number(readFileSync(lockPath, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** What stops DATA_DIR from holding the database, named for the operator; other failures as they are. */
function unusable(dir: string, error: unknown): unknown {
  const { code, message } = error as NodeJS.ErrnoException;
  const cause = `(${message})`;
  if (code === 'EEXIST' || code === 'ENOTDIR') {
    return new ConfigError(`DATA_DIR ${dir} is not a directory ${cause}: point DATA_DIR at a directory, or at a path that does not exist yet`);
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new ConfigError(`DATA_DIR ${dir} cannot be written by this process ${cause}: give it write access or choose another DATA_DIR`);
  }
  return error;
}

/**
 * The embedded database belongs to one process at a time. The lock is flock(2) on `consentry.lock`:
 * the kernel releases it when its holder exits, however it exits, so a lock file left by a killed
 * server never blocks the next start, whatever process now has the pid written in it. The pid is
 * written only to name the holder in the refusal.
 */
export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  const lockPath = join(dir, 'consentry.lock');
  let fd: number;
  try {
    mkdirSync(dir, { recursive: true });
    fd = openSync(lockPath, 'a+');
  } catch (error) {
    throw unusable(dir, error);
  }
  try {
    fsExt.flockSync(fd, 'exnb');
  } catch (error) {
    closeSync(fd);
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw error;
    const holder = holderOf(lockPath);
    throw new DataDirInUseError(
      `The embedded database in ${dir} is in use by ${holder ? `process ${holder}` : 'another process'} (a running Consentry server or CLI). ` +
        'Stop that process first, or run both against PostgreSQL by setting DATABASE_URL.',
    );
  }
  ftruncateSync(fd, 0);
  writeSync(fd, String(process.pid), 0);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    ftruncateSync(fd, 0);
    // Closing the descriptor releases the lock; the file stays, so no other process can lock a
    // file that is being removed.
    closeSync(fd);
  };
}
