import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { resolveAllowed, RefusedAddressError, type AddressPolicy } from './address-guard.ts';

export interface Refusal {
  url: string;
  reason: string;
}

/** Hop-by-hop headers a proxy must not pass on. */
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * The only way out of the scanning browser: Chromium is started with this proxy for every
 * request (loopback included), so every navigation, redirect hop, subresource, frame and WebSocket
 * passes here. Each host is resolved once and the connection goes to the address that was checked.
 * Plain HTTP is forwarded; HTTPS arrives as CONNECT and is tunnelled without being decrypted.
 */
export class GuardProxy {
  readonly refusals: Refusal[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly policy: AddressPolicy) {
    this.server = createServer((req, res) => void this.forward(req, res));
    this.server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => void this.tunnel(req, socket, head));
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(policy: AddressPolicy): Promise<GuardProxy> {
    const proxy = new GuardProxy(policy);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private refuse(url: string, error: unknown): string {
    const reason = error instanceof Error ? error.message : `${url} could not be reached`;
    if (error instanceof RefusedAddressError && this.refusals.length < 1000) this.refusals.push({ url, reason });
    return reason;
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400).end();
      return;
    }
    let address: string;
    try {
      ({ address } = await resolveAllowed(target.hostname, this.policy));
    } catch (error) {
      const reason = this.refuse(target.href, error);
      res.writeHead(403, { 'content-type': 'text/plain', 'x-consentry-refused': '1' }).end(reason);
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const upstream = httpRequest({
      host: address,
      port: target.port || 80,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
    });
    upstream.on('response', (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  }

  private async tunnel(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    if (!match) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const [, host, port] = match;
    let address: string;
    try {
      ({ address } = await resolveAllowed(host, this.policy));
    } catch (error) {
      this.refuse(`https://${req.url}`, error);
      client.end('HTTP/1.1 403 Forbidden\r\nx-consentry-refused: 1\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
