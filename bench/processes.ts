import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { processTree } from './cpu.ts';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * The arguments `npm start` gives node (package.json), so that the benchmark measures the server
 * exactly as it is run: its Node flags (the young generation's size, source maps) included. More
 * than one process: that many sharing the port (`bench/cluster.ts`).
 */
export function serverArgs(processes = 1): string[] {
  const start: string = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start;
  const node = /\bnode ((?:--\S+ )*)(dist\/server\.js)/.exec(start);
  if (!node) throw new Error(`package.json's start script does not run node dist/server.js: ${start}`);
  const flags = node[1].split(' ').filter(Boolean);
  // A CPU profile of each server process, written to this folder when it stops (for reading in
  // Chrome's DevTools or with a script): where a scenario's server time goes.
  if (process.env.BENCH_PROFILE) flags.push('--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`);
  return processes > 1 ? [...flags, '--import', 'tsx', 'bench/cluster.ts'] : [...flags, node[2]];
}

export interface Child {
  process: ChildProcess;
  url: string;
  /** Peak resident memory of the process so far, in MiB (VmHWM). */
  peakRssMiB(): number;
  /** Sends the signal (SIGTERM: a graceful stop) and waits until the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts a Node process (`node ...args`) and waits until `readyPath` answers 200. */
export async function startChild(args: string[], env: Record<string, string>, readyPath: string): Promise<Child> {
  const entry = args.at(-1);
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited: ${stderr}`);
    try {
      if ((await fetch(url + readyPath)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${entry} did not become ready: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    process: child,
    url,
    peakRssMiB() {
      let kib = 0;
      for (const pid of processTree(child.pid!)) {
        try {
          kib += Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
        } catch {
          // gone meanwhile
        }
      }
      return Math.round(kib / 1024);
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    },
  };
}
