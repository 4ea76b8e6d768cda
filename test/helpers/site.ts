import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A website for browser tests, on an origin of its own (`http://localhost:PORT`), not the service's. */
export interface TestSite {
  origin: string;
  close(): void;
}

export async function startSite(respond: (url: URL, response: ServerResponse, request: IncomingMessage) => void): Promise<TestSite> {
  const server = createServer((request, response) => respond(new URL(request.url ?? '/', 'http://localhost'), response, request));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
