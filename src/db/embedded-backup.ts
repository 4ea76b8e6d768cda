import { chmodSync, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync, createGzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { ConfigError } from '../config.ts';
import { lockDataDir } from './data-dir-lock.ts';

/**
 * Backups of the embedded database while its server runs. The server holds DATA_DIR's lock, so no
 * other process may open the database: the CLI asks the server instead, over a Unix socket in a
 * folder of DATA_DIR that only the server's user may enter (`DATA_DIR/admin/backup.sock`). Nothing
 * listens on the network and no token is needed: whoever may enter that folder may read DATA_DIR's
 * files anyway. The server answers with its database's files, checkpointed and taken between two
 * transactions; the CLI compresses them into the backup file.
 */

const REQUEST = 'backup\n';
/** A Unix socket's path holds at most 107 bytes on Linux. */
const SOCKET_PATH_MAX = 107;

export const backupSocketPath = (dataDir: string): string => join(resolve(dataDir), 'admin', 'backup.sock');

export class BackupError extends Error {
  override name = 'BackupError';
}

/**
 * Serves backups of the database `dump` reads, on DATA_DIR's socket (the caller holds DATA_DIR's
 * lock, so a socket file found there was left by a process that died). Answers one line of JSON,
 * `{"bytes": N}` then the tar's N bytes, or `{"error": "…"}`.
 */
export async function serveBackups(dataDir: string, dump: () => Promise<Blob>): Promise<{ close(): Promise<void> }> {
  const path = backupSocketPath(dataDir);
  if (Buffer.byteLength(path) > SOCKET_PATH_MAX) throw new Error(`the socket's path ${path} is longer than a Unix socket's ${SOCKET_PATH_MAX} bytes`);
  const folder = join(resolve(dataDir), 'admin');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  rmSync(path, { force: true });
  const server: Server = createServer((socket) => {
    socket.setTimeout(60_000, () => socket.destroy());
    let asked = '';
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      asked += chunk.toString('latin1');
      if (asked.length < REQUEST.length) return;
      socket.removeAllListeners('data');
      if (!asked.startsWith(REQUEST)) return void socket.end(`${JSON.stringify({ error: 'unknown request' })}\n`);
      socket.setTimeout(0);
      dump().then(
        async (tar) => {
          socket.write(`${JSON.stringify({ bytes: tar.size })}\n`);
          await pipeline(Readable.fromWeb(tar.stream() as Parameters<typeof Readable.fromWeb>[0]), socket);
        },
        (error: Error) => void socket.end(`${JSON.stringify({ error: error.message })}\n`),
      ).catch(() => socket.destroy());
    });
  });
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(path, () => ready());
  });
  chmodSync(path, 0o600);
  return {
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** Asks the server that holds DATA_DIR for its database's files (a tar); 10 minutes at most. */
export function requestBackup(dataDir: string): Promise<Buffer> {
  const path = backupSocketPath(dataDir);
  return new Promise<Buffer>((resolveBackup, reject) => {
    const socket = createConnection(path);
    const chunks: Buffer[] = [];
    socket.setTimeout(600_000, () => socket.destroy(new BackupError('the server did not send the backup within 10 minutes')));
    socket.on('connect', () => socket.write(REQUEST));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      reject(error instanceof BackupError ? error : new BackupError(
        `the server holding ${resolve(dataDir)} does not answer on ${path} (${error.code ?? error.message}): ` +
          'is it an older version? Stop it and run the backup again',
      ));
    });
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const newline = all.indexOf(10);
      let header: { bytes?: number; error?: string } = {};
      try {
        header = JSON.parse(all.subarray(0, newline).toString('utf8'));
      } catch {
        return reject(new BackupError('the server sent no backup'));
      }
      if (header.error) return reject(new BackupError(`the server could not take the backup: ${header.error}`));
      const tar = all.subarray(newline + 1);
      if (tar.length !== header.bytes) return reject(new BackupError(`the backup was cut short (${tar.length} of ${header.bytes} bytes)`));
      resolveBackup(tar);
    });
  });
}

/** Writes the tar gzipped to `out`, through a temporary file renamed at the end: no half backup under its name. */
export async function writeBackup(tar: Buffer, out: string): Promise<number> {
  const partial = `${out}.partial`;
  const source = Readable.from([tar]);
  const file = createWriteStream(partial, { mode: 0o600 });
  try {
    await pipeline(source, createGzip(), file);
    renameSync(partial, out);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  return file.bytesWritten;
}

/**
 * Restores a backup (`cli backup`'s gzipped tar, or a plain one) into DATA_DIR, which must be empty
 * or missing: a restore never overwrites a database.
 */
export async function restoreBackup(dataDir: string, archive: Buffer): Promise<void> {
  const dir = resolve(dataDir);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new ConfigError(`DATA_DIR ${dir} is not empty: restore into an empty or new DATA_DIR (a restore never overwrites a database)`);
  }
  const gzipped = archive[0] === 0x1f && archive[1] === 0x8b;
  let tar: Buffer;
  try {
    tar = gzipped ? gunzipSync(archive) : archive;
  } catch (error) {
    throw new BackupError(`the file is not a backup of Consentry's embedded database (${(error as Error).message})`);
  }
  // A tar's header says "ustar" at byte 257.
  if (tar.subarray(257, 262).toString('latin1') !== 'ustar') throw new BackupError('the file is not a backup of Consentry\'s embedded database (not a tar)');
  const unlock = lockDataDir(dir);
  try {
    const pglite = new PGlite(join(dir, 'pgdata'), { loadDataDir: new Blob([new Uint8Array(tar)]) });
    await pglite.waitReady;
    await pglite.close();
  } catch (error) {
    unlock();
    // DATA_DIR was empty: leave it so, ready for another try.
    for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
    throw new BackupError(`the backup could not be restored: ${(error as Error).message}`);
  }
  unlock();
}
