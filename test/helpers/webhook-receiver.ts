import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** What a receiver got: the headers, the body, and whether the signature verified with the secret it was given. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The payload as the standardwebhooks verifier parsed it; undefined when the signature failed. */
  verified: { type: string; timestamp: string; account_id: string; data: any } | undefined;
  at: number;
}

/** How the receiver answers a request to a path: a status, after a delay (longer than the sender's timeout: a timeout). */
export type Answer = { status: number; delayMs?: number };

export interface Receiver {
  url: string;
  received: Received[];
  /** The secret each path's signatures are verified with (set after creating the endpoint). */
  secrets: Map<string, string>;
  /** The answers of a path, taken in order; the last one repeats. Default: 204. */
  answers: Map<string, Answer[]>;
  of(path: string): Received[];
  close(): Promise<void>;
}

/** A real HTTP server on loopback that verifies every delivery with the standardwebhooks package. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const secrets = new Map<string, string>();
  const answers = new Map<string, Answer[]>();
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => { body += chunk; });
    req.on('end', () => {
      const path = req.url ?? '/';
      const secret = secrets.get(path);
      let verified: Received['verified'];
      try {
        verified = secret ? (new Webhook(secret).verify(body, req.headers as Record<string, string>) as Received['verified']) : undefined;
      } catch {
        verified = undefined;
      }
      received.push({ path, headers: req.headers, body, verified, at: Date.now() });
      const list = answers.get(path) ?? [];
      const answer = (list.length > 1 ? list.shift() : list[0]) ?? { status: 204 };
      const reply = () => {
        if (!res.destroyed) res.writeHead(answer.status, answer.status >= 300 && answer.status < 400 ? { location: 'http://127.0.0.1:1/' } : {}).end();
      };
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    secrets,
    answers,
    of: (path) => received.filter((r) => r.path === path),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
