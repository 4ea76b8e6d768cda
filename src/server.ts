import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { DataDirInUseError } from './db/data-dir-lock.ts';
import { describeStartupOutage } from './db/outage.ts';
import { serveMetrics } from './http/metrics.ts';
import { describeListenError, type ListenSettings } from './lib/listen-errors.ts';
import { createServices } from './services.ts';

/** Listens, or fails with a ConfigError naming the setting when the address is the trouble. */
async function listenOn<T>(settings: ListenSettings, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const problem = describeListenError(error, settings);
    throw problem ? new ConfigError(problem) : error;
  }
}

async function main() {
  const config = loadConfig();
  const services = await createServices(config);
  // The log is written through process.stdout, whose errors are dropped: pino's own writer retries
  // a write to a closed pipe (a log collector gone, `| head`) forever when it flushes at exit, and a
  // stopped server never exited. Lines that cannot be written are lost, not retried.
  process.stdout.on('error', () => {});
  const app = await buildApp(services, { logStream: process.stdout });
  let metricsServer: Server | undefined;
  // A line at the start and one at the end of a stop: a log that ends with both was a clean stop.
  // The grace comes on top of the 10 seconds the rest of a stop may take.
  const graceMs = config.shutdownGraceS * 1000;
  closeWithGrace({ delay: graceMs + 10_000, logger: app.log }, async ({ err, signal }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, `shutting down on ${signal ?? 'request'}: finishing the requests and writes in flight`);
    // From now on /readyz is 503 and every response closes its connection (http/draining.ts).
    services.draining.start();
    // SIGTERM is how a process manager or an orchestrator stops an instance behind a load balancer:
    // requests keep being served for the grace, until the balancer's health check has taken the
    // instance out, so that none it sends meanwhile is refused. SIGINT (Ctrl-C) stops at once.
    if (!err && signal === 'SIGTERM' && graceMs > 0) {
      app.log.info({ grace_s: config.shutdownGraceS }, 'draining: /readyz answers 503; serving what the load balancer still sends until the grace ends');
      await new Promise((resolve) => setTimeout(resolve, graceMs));
    }
    // Stops listening, answers the requests in flight; then commits the consents accepted and
    // writes the visit counts held, and closes the database and Redis.
    metricsServer?.close();
    await app.close();
    await services.close();
    app.log.info('shut down: every request answered and every write done');
  });
  // The metrics port first: a METRICS_HOST or METRICS_PORT that cannot be had stops the start
  // before the API says it is listening.
  if (services.metrics && config.metricsPort !== undefined) {
    const metrics = services.metrics;
    const settings = { hostName: 'METRICS_HOST', host: config.metricsHost, portName: 'METRICS_PORT', port: config.metricsPort };
    metricsServer = await listenOn(settings, () => serveMetrics(metrics, config.metricsHost, config.metricsPort!));
  }
  await listenOn({ hostName: 'HOST', host: config.host, portName: 'PORT', port: config.port }, () => app.listen({ port: config.port, host: config.host }));
  if (metricsServer) {
    const { port } = metricsServer.address() as AddressInfo;
    app.log.info({ metrics: `http://${config.metricsHost}:${port}/metrics` }, 'metrics are served on their own port');
  }
  if (services.migrated.length > 0) app.log.info({ migrated: services.migrated }, 'applied the pending migrations');
  app.log.info({ engine: services.engine, docs: `${config.publicUrl}/docs` }, 'Consentry is serving');
}

main().catch((error) => {
  const expected = error instanceof ConfigError || error instanceof DataDirInUseError;
  const outage = describeStartupOutage(error);
  console.error(expected ? `consentry: ${error.message}` : outage ? `consentry: ${outage}` : error);
  process.exit(1);
});
