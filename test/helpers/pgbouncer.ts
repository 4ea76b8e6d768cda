import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../bench/processes.ts';

/** Debian's PgBouncer (`apt-get install pgbouncer`; .ci/run installs it). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';
export const canRunPgBouncer = (): boolean => existsSync(PGBOUNCER);

export interface PgBouncerOptions {
  /** The PostgreSQL behind it, as a URL (its host and port are used; the user is logged in as). */
  target: string;
  /** Server connections per database; small, so that transactions really share them. */
  poolSize?: number;
  /** Run on every new server connection (PgBouncer's connect_query); default `SET jit = off`. */
  connectQuery?: string;
}

/**
 * A real PgBouncer in transaction mode, in a temporary directory on a free port, in front of one
 * PostgreSQL: every database name a client asks for is passed on to that server (the `*` entry), so a
 * test reaches its own throwaway database at `url(name)`. Any user name is accepted and PostgreSQL is
 * logged into as the target's user (`auth_type = any`: PostgreSQL trusts local connections here).
 * PgBouncer refuses to run as root: as root it drops to the `postgres` user (`-u`).
 */
export class PgBouncer {
  readonly dir = mkdtempSync(join(tmpdir(), 'consentry-pgbouncer-'));
  port = 0;
  private child: ChildProcess | undefined;

  private constructor(private readonly options: PgBouncerOptions) {}

  static async start(options: PgBouncerOptions): Promise<PgBouncer> {
    const bouncer = new PgBouncer(options);
    try {
      await bouncer.listen();
    } catch (error) {
      bouncer.stop();
      throw error;
    }
    return bouncer;
  }

  /** A connection URL for `database` through the pooler. */
  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${encodeURIComponent(database)}`;
  }

  get log(): string {
    const file = join(this.dir, 'pgbouncer.log');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }

  stop(): void {
    this.child?.kill('SIGKILL');
    this.child = undefined;
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async listen(): Promise<void> {
    const target = new URL(this.options.target);
    const connectQuery = (this.options.connectQuery ?? 'SET jit = off').replaceAll("'", "''");
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(this.dir, ...postgresIds());
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      const ini = join(this.dir, 'pgbouncer.ini');
      writeFileSync(ini, [
        '[databases]',
        `* = host=${target.hostname} port=${target.port || 5432} user=${decodeURIComponent(target.username) || 'postgres'} connect_query='${connectQuery}'`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${this.port}`,
        'unix_socket_dir =',
        'auth_type = any',
        'pool_mode = transaction',
        `default_pool_size = ${this.options.poolSize ?? 4}`,
        'max_client_conn = 1000',
        `logfile = ${join(this.dir, 'pgbouncer.log')}`,
        '',
      ].join('\n'));
      const child = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (chunk) => (stderr += chunk));
      this.child = child;
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && child.exitCode === null && !(await accepts(this.port))) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (child.exitCode === null && (await accepts(this.port))) return;
      child.kill('SIGKILL');
      if (attempt === 3) throw new Error(`PgBouncer did not start on port ${this.port}: ${stderr}${this.log.split('\n').slice(-5).join('\n')}`);
    }
  }
}

function postgresIds(): [number, number] {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('PgBouncer refuses to run as root, and there is no postgres user to run it as');
  const [, , uid, gid] = line.split(':');
  return [Number(uid), Number(gid)];
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The port of the PgBouncer the `pgbouncer` project's files reach PostgreSQL through; 0: none. */
    pgbouncerPort: number;
  }
}

/**
 * Vitest's global setup: with DATABASE_URL set and PgBouncer installed, one PgBouncer in transaction
 * mode in front of that PostgreSQL for the whole run, which the `pgbouncer` project's files go through
 * (`startApp` gives each its own database behind it, see app.ts).
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (!project.isRootProject()) return undefined;
  if (!process.env.DATABASE_URL || !canRunPgBouncer()) {
    project.provide('pgbouncerPort', 0);
    return undefined;
  }
  const bouncer = await PgBouncer.start({ target: process.env.DATABASE_URL, poolSize: 4 });
  project.provide('pgbouncerPort', bouncer.port);
  return () => bouncer.stop();
}
