import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Whether this machine can run a private redis-server for the tests that stop or misuse one. */
export const HAS_REDIS_SERVER = existsSync('/usr/bin/redis-server');

/** A private redis-server on its own port, so that stopping it disturbs nothing else. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', () => reject(new Error(`redis-server exited: ${out}`)));
  });
  return child;
}

export async function stopRedis(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
