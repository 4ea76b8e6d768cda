/**
 * The server as several processes sharing one port (Node's cluster), as instances behind a load
 * balancer share one database: `BENCH_PROCESSES`. Each worker runs dist/server.js with the Node
 * flags of `npm start`, which it inherits from this primary.
 */
import cluster from 'node:cluster';
import { resolve } from 'node:path';

if (cluster.isPrimary) {
  const count = Number(process.env.BENCH_PROCESSES);
  for (let i = 0; i < count; i++) cluster.fork();
  let running = count;
  cluster.on('exit', () => {
    if (--running === 0) process.exit(0);
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    });
  }
} else {
  await import(resolve('dist/server.js'));
}
