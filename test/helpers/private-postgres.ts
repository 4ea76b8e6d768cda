import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../bench/processes.ts';

/** The PostgreSQL server binaries of this machine, if any. */
function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort().at(-1);
  const dir = version && join(root, version, 'bin');
  return dir && existsSync(join(dir, 'initdb')) ? dir : undefined;
}

/** A client tool of this machine's PostgreSQL (pg_dump, pg_restore), by its full path; undefined without one. */
export function postgresTool(name: string): string | undefined {
  const dir = binDir();
  return dir && existsSync(join(dir, name)) ? join(dir, name) : undefined;
}

/** A throwaway PostgreSQL server needs its binaries and, as root, the postgres user to run them. */
export const canRunPrivatePostgres = (): boolean => binDir() !== undefined && (process.getuid?.() !== 0 || existsSync('/usr/sbin/runuser'));

/**
 * A PostgreSQL server of the test's own, in a temporary directory on its own port, that the test
 * may stop and start without disturbing the machine's shared server.
 */
export class PrivatePostgres {
  readonly dir = mkdtempSync(join(tmpdir(), 'consentry-pg-'));
  private readonly bin = binDir()!;
  port = 0;

  /**
   * A new cluster; or, with `replicaOf` (a running server), a streaming replica of it: a base backup
   * (`pg_basebackup -R`, which writes `standby.signal` and the primary's address) to start on a port
   * of its own. initdb's `pg_hba.conf` lets the postgres user replicate from 127.0.0.1.
   */
  constructor(options: { replicaOf?: PrivatePostgres } = {}) {
    if (process.getuid?.() === 0) chownSync(this.dir, ...this.postgresIds());
    const primary = options.replicaOf;
    if (primary) {
      this.run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', this.dir, '-R', '-X', 'stream', '--no-sync']);
    } else {
      this.run('initdb', ['-D', this.dir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    }
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /**
   * The first start, on a port the machine gave as free a moment before. Another socket can take it
   * meanwhile (a random port in the ephemeral range once collided here), so three ports are tried.
   */
  async startOnFreePort(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      try {
        this.start();
        return;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  }

  /** Starts again on its port; a failure says what PostgreSQL's log says. */
  start(): void {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    const log = join(this.dir, 'log');
    try {
      this.run('pg_ctl', ['-D', this.dir, '-o', options, '-l', log, '-w', 'start']);
    } catch (error) {
      const said = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-5).join('\n') : 'no log';
      throw new Error(`PostgreSQL did not start on port ${this.port}: ${said}`, { cause: error });
    }
  }

  /** An abrupt stop, like a crash of the database host. */
  stop(): void {
    this.run('pg_ctl', ['-D', this.dir, '-m', 'immediate', '-w', 'stop']);
  }

  destroy(): void {
    try {
      this.stop();
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private postgresIds(): [number, number] {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return [uid, gid];
  }

  private run(tool: string, args: string[]): void {
    const command = join(this.bin, tool);
    if (process.getuid?.() === 0) execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' });
    else execFileSync(command, args, { stdio: 'pipe' });
  }
}
