import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { DataDirInUseError } from './db/data-dir-lock.ts';
import { describeStartupOutage } from './db/outage.ts';
import { serveMetrics } from './http/metrics.ts';
import { createServices } from './services.ts';

async function main() {
  const config = loadConfig();
  const services = await createServices(config);
  const app = await buildApp(services);
  let metricsServer: Server | undefined;
  closeWithGrace({ delay: 10_000 }, async ({ err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    metricsServer?.close();
    await app.close();
    await services.close();
  });
  await app.listen({ port: config.port, host: config.host });
  if (services.metrics && config.metricsPort !== undefined) {
    metricsServer = await serveMetrics(services.metrics, config.metricsHost, config.metricsPort);
    const { port } = metricsServer.address() as AddressInfo;
    app.log.info({ metrics: `http://${config.metricsHost}:${port}/metrics` }, 'metrics are served on their own port');
  }
  app.log.info({ engine: services.engine, docs: `${config.publicUrl}/docs` }, 'Consentry is serving');
}

main().catch((error) => {
  const expected = error instanceof ConfigError || error instanceof DataDirInUseError;
  const outage = describeStartupOutage(error);
  console.error(expected ? `consentry: ${error.message}` : outage ? `consentry: ${outage}` : error);
  process.exit(1);
});
