import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface LoopbackSite {
  port: number;
  /** `http://localhost:PORT`: another origin than the app's `http://127.0.0.1:PORT`. */
  url: string;
}

/**
 * A website of the file's own (or of the describe block it is called in), answered by `handler` on a
 * free loopback port: started in a beforeAll, closed in an afterAll. Its port and address are there
 * once that beforeAll has run.
 */
export function fileSite(handler: RequestListener): LoopbackSite {
  const site: LoopbackSite = { port: 0, url: '' };
  let server: Server | undefined;
  beforeAll(async () => {
    const listening = createServer(handler);
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    server = listening;
    site.port = (listening.address() as AddressInfo).port;
    site.url = `http://localhost:${site.port}`;
  });
  afterAll(() => {
    server?.close();
  });
  return site;
}
