/**
 * A server that cannot start says why in one line naming the setting to change, and exits 1: no
 * stack trace, no error object, and no "listening" line before it. The real server process on an
 * embedded database (the failures are about the addresses and the data directory, whatever the
 * engine: the embedded project only).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/processes.ts';
import { builtEntry } from '../helpers/built-entries.ts';
import { freshDataDir } from '../helpers/embedded-template.ts';
import { loadConfig } from '../../src/config.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The server's whole output, when it stops by itself. */
function start(env: Record<string, string>) {
  const dataDir = freshDataDir();
  dirs.push(dataDir);
  const run = spawnSync(process.execPath, builtEntry('server'), {
    env: { ...process.env, LOG_LEVEL: 'info', DATABASE_URL: '', DATA_DIR: dataDir, REDIS_URL: '', HOST: '127.0.0.1', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** Exactly one line, naming the setting. */
function expectOneLine(output: string, line: RegExp) {
  expect(output).toMatch(/^consentry: [^\n]*\n$/);
  expect(output).toMatch(line);
}

describe('a server that cannot start', () => {
  it('names PORT when another process listens on it', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const run = start({ PORT: String(port) });
      expect(run.status).toBe(1);
      expectOneLine(run.output, new RegExp(`^consentry: PORT ${port} is already in use on 127\\.0\\.0\\.1 \\(.*EADDRINUSE.*\\): stop what listens there or choose another PORT\\n$`));
    } finally {
      taken.close();
    }
  });

  it('refuses METRICS_PORT equal to PORT before anything listens', async () => {
    const port = await freePort();
    const run = start({ PORT: String(port), METRICS_PORT: String(port) });
    expect(run.status).toBe(1);
    expectOneLine(run.output, new RegExp(`^consentry: METRICS_PORT must differ from PORT \\(both are ${port}\\)`));
  });

  it('lets one port serve the API and the metrics on two different addresses, but not on every address', () => {
    const both = { PORT: '9464', METRICS_PORT: '9464' };
    expect(loadConfig({ ...both, HOST: '127.0.0.1', METRICS_HOST: '127.0.0.2' })).toMatchObject({ port: 9464, metricsPort: 9464 });
    for (const hosts of [{ HOST: '0.0.0.0', METRICS_HOST: '127.0.0.1' }, { HOST: '127.0.0.1', METRICS_HOST: '::' }, {}]) {
      expect(() => loadConfig({ ...both, ...hosts })).toThrow(/METRICS_PORT must differ from PORT \(both are 9464\) on the same address/);
    }
  });

  it('reads a blank integer variable as unset, and only digits as a number', () => {
    expect(loadConfig({ PORT: ' ', RATE_LIMIT_MAX: '' })).toMatchObject({ port: 3000, rateLimitMax: 300 });
    expect(loadConfig({ PORT: ' 8080 ' })).toMatchObject({ port: 8080 });
    for (const written of ['0x1F90', '8e3', '8080.0', '+8080']) {
      expect(() => loadConfig({ PORT: written })).toThrow(`PORT must be an integer between 0 and 65535 (got "${written}")`);
    }
  });

  it('names METRICS_HOST when it is not an address of this machine, before the API listens', async () => {
    // 192.0.2.0/24 is reserved for documentation (RFC 5737): no machine has it.
    const run = start({ PORT: String(await freePort()), METRICS_PORT: String(await freePort()), METRICS_HOST: '192.0.2.1' });
    expect(run.status).toBe(1);
    expectOneLine(run.output, /^consentry: METRICS_HOST 192\.0\.2\.1 is not an address of this machine \(.*EADDRNOTAVAIL.*\): set METRICS_HOST to one of its addresses/);
  });

  it('names HOST, not the database, when HOST does not resolve', async () => {
    // .invalid never resolves (RFC 2606).
    const run = start({ PORT: String(await freePort()), HOST: 'not-a-host.invalid' });
    expect(run.status).toBe(1);
    expectOneLine(run.output, /^consentry: HOST not-a-host\.invalid does not resolve \(.*\): set HOST to an address or host name of this machine\n$/);
    expect(run.output).not.toContain('DATABASE_URL');
  });

  it('names DATA_DIR when it is a regular file, or under one', () => {
    const parent = mkdtempSync(join(tmpdir(), 'consentry-startup-'));
    dirs.push(parent);
    const file = join(parent, 'not-a-directory');
    writeFileSync(file, 'data');
    for (const dataDir of [file, join(file, 'below')]) {
      const run = start({ DATA_DIR: dataDir });
      expect(run.status).toBe(1);
      expectOneLine(run.output, new RegExp(`^consentry: DATA_DIR ${dataDir} is not a directory \\(.*\\): point DATA_DIR at a directory`));
    }
  });
});
