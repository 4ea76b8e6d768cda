/**
 * What the server process tells its operator in its log, beyond requests: a Redis it could not
 * use at start (without REDIS_URL's password), and a graceful stop from its start to its end, so
 * that a clean stop is told from a crash. The real server from its bundle on an embedded database
 * (the embedded project only: the database plays no part).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/processes.ts';
import { builtEntry } from '../helpers/built-entries.ts';
import { freshDataDir } from '../helpers/embedded-template.ts';
import { HAS_REDIS_SERVER, startRedis, stopRedis } from '../helpers/redis-server.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Running {
  url: string;
  /** Everything written so far to stdout and stderr, one JSON object a line. */
  lines(): Record<string, unknown>[];
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** Closes the reading end of the server's stdout, as a log collector that dies does. */
  closeStdout(): void;
}

async function serve(env: Record<string, string>): Promise<Running> {
  const dataDir = freshDataDir();
  dirs.push(dataDir);
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, builtEntry('server'), {
    env: { ...process.env, LOG_LEVEL: 'info', DATABASE_URL: '', DATA_DIR: dataDir, REDIS_URL: '', PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
    if (child.exitCode !== null) throw new Error(`the server exited: ${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not become ready: ${output}`);
    }
    if (await fetch(`${url}/readyz`).then((response) => response.ok, () => false)) break;
  }
  return {
    url,
    lines: () => output.split('\n').filter(Boolean).map((line) => JSON.parse(line)),
    async stop() {
      child.kill('SIGTERM');
      // A server that does not stop fails its test, and is not left running.
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      return exited.finally(() => clearTimeout(killer));
    },
    closeStdout: () => child.stdout!.destroy(),
  };
}

const saying = (lines: Record<string, unknown>[], text: string) => lines.filter((line) => String(line.msg).includes(text));

describe('the server log', () => {
  it('warns once, without the password, when Redis cannot be reached at start', async () => {
    const redisPort = await freePort();
    const server = await serve({ REDIS_URL: `redis://:the-redis-password@127.0.0.1:${redisPort}` });
    try {
      expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'degraded', redis: 'unreachable' });
      // Reconnection attempts go on failing meanwhile: still one line.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const warnings = saying(server.lines(), 'Redis');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 40, redis: `redis://127.0.0.1:${redisPort}` });
      expect(warnings[0].msg).toMatch(new RegExp(`^Redis at redis://127\\.0\\.0\\.1:${redisPort} is unreachable at start \\(connect ECONNREFUSED .*\\): .*check REDIS_URL$`));
      expect(JSON.stringify(server.lines())).not.toContain('the-redis-password');
    } finally {
      await server.stop();
    }
  });

  it.runIf(HAS_REDIS_SERVER)('says nothing of a Redis that comes up while the server waits for it', async () => {
    const redisPort = await freePort();
    // As in a compose file where Redis starts a moment after the service: refused at first.
    const starting = serve({ REDIS_URL: `redis://127.0.0.1:${redisPort}` });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const redis = await startRedis(redisPort);
    try {
      const server = await starting;
      try {
        expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ok' });
        expect(saying(server.lines(), 'Redis')).toEqual([]);
      } finally {
        await server.stop();
      }
    } finally {
      await stopRedis(redis);
    }
  });

  it.runIf(HAS_REDIS_SERVER)('warns once when Redis refuses the database number of REDIS_URL', async () => {
    const redisPort = await freePort();
    const redis = await startRedis(redisPort);
    try {
      const server = await serve({ REDIS_URL: `redis://127.0.0.1:${redisPort}/99` });
      try {
        const warnings = saying(server.lines(), 'Redis');
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatchObject({ level: 40, redis: `redis://127.0.0.1:${redisPort}/99` });
        expect(warnings[0].msg).toMatch(/answered with an error at start \(ERR DB index is out of range\): check REDIS_URL$/);
      } finally {
        await server.stop();
      }
    } finally {
      await stopRedis(redis);
    }
  });

  it('stops on SIGTERM when whatever read its log has gone', async () => {
    const server = await serve({});
    server.closeStdout();
    // A line to a closed pipe: the server goes on serving.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await server.stop()).toBe(0);
  });

  it('says when a graceful stop begins and when it is done, at info', async () => {
    const server = await serve({});
    expect(await server.stop()).toBe(0);
    const lines = server.lines();
    const begun = lines.findIndex((line) => line.msg === 'shutting down on SIGTERM: finishing the requests and writes in flight');
    expect(begun).toBeGreaterThan(-1);
    expect(lines[begun]).toMatchObject({ level: 30, signal: 'SIGTERM' });
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: 'shut down: every request answered and every write done' });
  });
});
