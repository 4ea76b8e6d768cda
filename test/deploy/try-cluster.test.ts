/**
 * deploy/try-cluster.sh starts the production topology of deploy/ on this machine: HAProxy in front
 * of two instances, PgBouncer in transaction mode in front of PostgreSQL. Runs with DATABASE_URL
 * (the postgres project); the script installs haproxy and pgbouncer when they are missing (.ci/run
 * does too). Each run has a database and a state folder of its own.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE } from '../helpers/app.ts';
import { createThrowawayDatabase } from '../helpers/throwaway-database.ts';

const run = promisify(execFile);

interface Cluster {
  url: string;
  instances: { pid: number; port: number }[];
}

/** Whether process `pid` runs: an exited one that nobody has reaped yet (a zombie) does not. */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
};

describe.skipIf(ENGINE !== 'postgres')('deploy/try-cluster.sh', () => {
  const state = join(mkdtempSync(join(tmpdir(), 'consentry-try-')), 'cluster');
  let database: Awaited<ReturnType<typeof createThrowawayDatabase>>;
  let env: NodeJS.ProcessEnv;

  /** Runs the script; its one line of JSON on stdout. */
  async function cluster(...args: string[]): Promise<Cluster> {
    const { stdout } = await run('deploy/try-cluster.sh', args, { env, timeout: 240_000 });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]);
  }

  beforeAll(async () => {
    database = await createThrowawayDatabase(process.env.DATABASE_URL!);
    env = { ...process.env, DATABASE_URL: database.url, CONSENTRY_CLUSTER_DIR: state, SCAN_CONCURRENCY: '0' };
  });

  afterAll(async () => {
    await run('deploy/try-cluster.sh', ['down'], { env }).catch(() => {});
    await database?.drop();
    rmSync(join(state, '..'), { recursive: true, force: true });
  });

  it('starts the balancer, PgBouncer and two instances; restarts, kills and stops them', async () => {
    const up = await cluster('up');
    expect(up.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(up.instances).toHaveLength(2);
    for (const { pid } of up.instances) expect(alive(pid)).toBe(true);

    // The balancer answers, its health checks pass, and requests reach both instances.
    const ready = await fetch(`${up.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: expect.stringMatching(/^(ok|degraded)$/) });
    const servedBy = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${up.url}/healthz`);
      expect(res.status).toBe(200);
      servedBy.add(res.headers.get('x-consentry-server') ?? '');
    }
    expect([...servedBy].sort()).toEqual(['consentry1', 'consentry2']);
    // Through PgBouncer: a sign-up writes to the database behind it.
    const signUp = await fetch(`${up.url}/api/v1/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { name: 'Balanced', email: 'balanced@example.com', password: 'correct horse battery' } }),
    });
    expect(signUp.status).toBe(201);

    const restarted = await cluster('restart', '1');
    expect(restarted.instances[0].port).toBe(up.instances[0].port);
    expect(restarted.instances[0].pid).not.toBe(up.instances[0].pid);
    expect(alive(up.instances[0].pid)).toBe(false);
    expect(restarted.instances[1].pid).toBe(up.instances[1].pid);
    expect((await fetch(`http://127.0.0.1:${restarted.instances[0].port}/readyz`)).status).toBe(200);

    const killed = await cluster('kill', '2');
    expect(killed.instances[1].pid).not.toBe(up.instances[1].pid);
    expect(alive(up.instances[1].pid)).toBe(false);
    expect((await fetch(`${up.url}/readyz`)).status).toBe(200);
    expect(await cluster('status')).toEqual(killed);

    await run('deploy/try-cluster.sh', ['down'], { env });
    for (const { pid } of killed.instances) expect(alive(pid)).toBe(false);
    await expect(fetch(`${up.url}/healthz`)).rejects.toThrow();
    expect(existsSync(state)).toBe(false);
    // Nothing left to stop is not an error.
    await run('deploy/try-cluster.sh', ['down'], { env });
    await expect(run('deploy/try-cluster.sh', ['status'], { env })).rejects.toThrow();
  }, 420_000);
});
