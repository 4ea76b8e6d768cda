/**
 * deploy/haproxy.cfg retries a request on another instance only when that is harmless: always when
 * it could not be connected; after it was sent, only GET/HEAD/OPTIONS and the banner's consent POST
 * carrying an Idempotency-Key. Two stand-in instances behind the real HAProxy: one drops every
 * request it receives (as a killed instance does), the other answers. Needs Debian's haproxy
 * (.ci/run installs it); runs in the postgres project with the other deployment tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/processes.ts';
import { ENGINE } from '../helpers/app.ts';

const HAPROXY = '/usr/sbin/haproxy';

/** deploy/haproxy.cfg for this machine, as deploy/try-cluster.sh renders it. */
function render(port: number, servers: number[]): string {
  const lines = readFileSync('deploy/haproxy.cfg', 'utf8').split('\n')
    .filter((line) => !/^\s*(chroot|user|group|stats socket|log \/dev\/log)\b/.test(line) && !/^\s*server consentry\d+ /.test(line))
    .map((line) => line.replace(/^(\s*bind )0\.0\.0\.0:80\b/, `$1127.0.0.1:${port}`));
  return [...lines, ...servers.map((p, i) => `    server consentry${i + 1} 127.0.0.1:${p}`), ''].join('\n');
}

describe.skipIf(ENGINE !== 'postgres' || !existsSync(HAPROXY))('the balancer\'s retries (deploy/haproxy.cfg)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'consentry-haproxy-'));
  const received = { dropping: [] as string[], answering: [] as string[] };
  let haproxy: ChildProcess;
  let url = '';
  const backends: Server[] = [];

  /** A stand-in instance: ready for health checks; every other request dropped, or answered. */
  async function backend(name: keyof typeof received): Promise<number> {
    const server = createServer((req, res) => {
      if (req.url === '/readyz') return void res.end('{"status":"ok"}');
      req.resume();
      req.on('end', () => {
        received[name].push(`${req.method} ${req.url} ${req.headers['x-test-id']}`);
        if (name === 'dropping') req.socket.destroy();
        else res.end(name);
      });
    });
    backends.push(server);
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return port;
  }

  beforeAll(async () => {
    const servers = [await backend('dropping'), await backend('answering')];
    const port = await freePort();
    writeFileSync(join(dir, 'haproxy.cfg'), render(port, servers));
    haproxy = spawn(HAPROXY, ['-W', '-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
    url = `http://127.0.0.1:${port}`;
    // Both in rotation: two health checks a second apart.
    const deadline = Date.now() + 20_000;
    while ((await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200) {
      if (Date.now() > deadline) throw new Error('HAProxy does not answer');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }, 60_000);

  afterAll(() => {
    haproxy?.kill('SIGKILL');
    for (const server of backends) server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function send(method: string, path: string, id: string, headers: Record<string, string> = {}) {
    // A new connection each: a request whose instance dropped it may also cost the client its connection.
    const res = await fetch(`${url}${path}`, { method, headers: { 'x-test-id': id, connection: 'close', ...headers }, body: method === 'POST' ? '{}' : undefined })
      .catch((error: Error) => error);
    return res instanceof Error ? { status: 0, body: res.message } : { status: res.status, body: await res.text() };
  }

  const seen = (id: string) => [...received.dropping, ...received.answering].filter((line) => line.endsWith(` ${id}`));

  it('retries a GET that got no answer on the other instance', async () => {
    for (let i = 0; i < 6; i++) {
      expect(await send('GET', '/api/v1/categories', `get-${i}`)).toEqual({ status: 200, body: 'answering' });
    }
    expect(received.dropping.some((line) => line.startsWith('GET '))).toBe(true);
  });

  it('retries the banner\'s consent POST with an Idempotency-Key, and no other POST', async () => {
    for (let i = 0; i < 6; i++) {
      expect(await send('POST', '/widget/abc/consents', `keyed-${i}`, { 'idempotency-key': `key-${i}` })).toEqual({ status: 200, body: 'answering' });
    }
    const unkeyed: number[] = [];
    const others: number[] = [];
    // Round robin: of each six, some reach the dropping instance.
    for (let i = 0; i < 6; i++) unkeyed.push((await send('POST', '/widget/abc/consents', `unkeyed-${i}`)).status);
    for (let i = 0; i < 6; i++) others.push((await send('POST', '/api/v1/consents', `api-${i}`, { 'idempotency-key': `key-api-${i}` })).status);
    // Those that reached the dropping instance failed, and none was sent twice.
    expect(unkeyed).toContain(502);
    expect(others).toContain(502);
    for (let i = 0; i < 6; i++) {
      expect(seen(`unkeyed-${i}`)).toHaveLength(1);
      expect(seen(`api-${i}`)).toHaveLength(1);
    }
  });
});
