/**
 * The guard proxy sees TCP only: whatever a scanned page could send past it (WebRTC's STUN, TURN
 * and ICE over UDP, WebTransport's QUIC) would reach a private address unchecked. A page, a
 * cross-site iframe, a fresh about:blank iframe and a worker each try; UDP and TCP listeners on the
 * "private" address must receive nothing, with the scanner's browser as a scan runs it and with
 * the browser's own settings alone (no page script).
 */
import { createSocket, type Socket } from 'node:dgram';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freshProfile, scanLaunchOptions } from '../../src/scanner/browser.ts';
import { GuardProxy } from '../../src/scanner/guard-proxy.ts';
import { ENGINE } from '../helpers/app.ts';
import { CHROMIUM_PATH, describeBrowser } from '../helpers/browser.ts';
import { crawlDirectly } from '../helpers/scan-site.ts';

/** 127.0.0.1 and 127.0.0.2 stand for the internet (the site and a third party), 127.0.0.4 for a private network. */
const PRIVATE = '127.0.0.4';
const policy = (address: string) => address !== PRIVATE;

/** Where the page sends to: a UDP port (STUN, TURN over UDP, WebTransport) and a TCP port (TURN over TCP). */
interface Targets {
  udp: number;
  tcp: number;
}

/**
 * Runs in a window or a worker: opens what could send to the private address, then reports what
 * it tried to its own origin. The report is answered once a packet has arrived or after a moment,
 * so the page stays busy (and its browser open) while ICE gathers.
 */
const attempt = (where: string, { udp, tcp }: Targets) => `
(async () => {
  const tried = [];
  const scope = self;
  const peer = async (Peer) => {
    if (typeof Peer !== 'function') return 'absent';
    try {
      const connection = new Peer({ iceServers: [
        { urls: 'stun:${PRIVATE}:${udp}' },
        { urls: ['turn:${PRIVATE}:${udp}?transport=udp', 'turn:${PRIVATE}:${tcp}?transport=tcp'], username: 'u', credential: 'p' },
      ] });
      connection.createDataChannel('probe');
      await connection.setLocalDescription(await connection.createOffer());
      return 'offer';
    } catch (error) {
      return 'refused ' + (error && error.name);
    }
  };
  tried.push('rtc:' + (await peer(scope.RTCPeerConnection)));
  tried.push('webkit:' + (await peer(scope.webkitRTCPeerConnection)));
  if (scope.document) {
    // A frame that is never navigated: its globals are the browser's own unless it too gets the init script.
    const blank = document.createElement('iframe');
    document.body.appendChild(blank);
    tried.push('blank:' + (await peer(blank.contentWindow.RTCPeerConnection)));
  }
  try {
    if (typeof scope.WebTransport !== 'function') tried.push('webtransport:absent');
    else {
      const transport = new WebTransport('https://${PRIVATE}:${udp}/');
      transport.ready.catch(() => {});
      transport.closed.catch(() => {});
      tried.push('webtransport:opened');
    }
  } catch (error) {
    tried.push('webtransport:refused');
  }
  await fetch('/report?where=${where}&tried=' + encodeURIComponent(tried.join(' ')));
})();`;

interface Site {
  url: string;
  /** What each script tried, once its report has been answered. */
  reports: Array<{ where: string; tried: string }>;
  close(): Promise<void>;
}

/** The site (127.0.0.1) with a cross-site iframe (127.0.0.2) and a worker, each running `attempt`. */
async function startSite(listeners: Listeners): Promise<Site> {
  const reports: Site['reports'] = [];
  const servers: Server[] = [];
  const targets = { udp: listeners.udpPort, tcp: listeners.tcpPort };
  const listen = async (host: string) => {
    const server = createServer(async (req, res) => {
      const url = new URL(req.url ?? '/', `http://${host}`);
      const html = (body: string) => res.setHeader('content-type', 'text/html').end(`<!doctype html><title>probe</title><body>${body}</body>`);
      if (url.pathname === '/report') {
        await listeners.received(1_500);
        reports.push({ where: url.searchParams.get('where') ?? '', tried: url.searchParams.get('tried') ?? '' });
        return res.end('ok');
      }
      if (url.pathname === '/worker.js') return res.setHeader('content-type', 'text/javascript').end(attempt('worker', targets));
      if (url.pathname === '/frame.html') return html(`<script>${attempt('frame', targets)}</script>`);
      if (url.pathname === '/') {
        return html(`<iframe src="${third}/frame.html"></iframe><script>new Worker('/worker.js');${attempt('page', targets)}</script>`);
      }
      res.statusCode = 404;
      res.end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    return `http://${host}:${(server.address() as AddressInfo).port}`;
  };
  const third = await listen('127.0.0.2');
  const url = await listen('127.0.0.1');
  return {
    url,
    reports,
    async close() {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

interface Listeners {
  udpPort: number;
  tcpPort: number;
  /** Each datagram (whether it was a STUN message, by its magic cookie) and TCP connection received. */
  arrivals: Array<{ kind: 'stun' | 'udp' | 'tcp'; from: string }>;
  /** Resolves at the first arrival, or after `ms` when none comes. */
  received(ms: number): Promise<void>;
  close(): Promise<void>;
}

async function listenPrivate(): Promise<Listeners> {
  const arrivals: Listeners['arrivals'] = [];
  const waiting = new Set<() => void>();
  const arrived = (kind: 'stun' | 'udp' | 'tcp', from: string) => {
    arrivals.push({ kind, from });
    for (const wake of waiting) wake();
  };
  const udp: Socket = createSocket('udp4');
  udp.on('message', (message, from) => arrived(message.length >= 8 && message.readUInt32BE(4) === 0x2112a442 ? 'stun' : 'udp', `${from.address}:${from.port}`));
  await new Promise<void>((resolve) => udp.bind(0, PRIVATE, resolve));
  const tcp = createTcpServer((socket) => {
    arrived('tcp', `${socket.remoteAddress}:${socket.remotePort}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, PRIVATE, resolve));
  return {
    udpPort: udp.address().port,
    tcpPort: (tcp.address() as AddressInfo).port,
    arrivals,
    received: (ms) =>
      new Promise<void>((resolve) => {
        if (arrivals.length > 0) return resolve();
        const wake = () => {
          clearTimeout(timer);
          waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        waiting.add(wake);
      }),
    async close() {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

const where = (site: Site) => Object.fromEntries(site.reports.map((report) => [report.where, report.tried]));

// No database: it runs once, with the embedded project.
(ENGINE === 'embedded' ? describeBrowser : describe.skip)('the scanner browser sends nothing past the guard proxy', () => {
  let listeners: Listeners;
  let site: Site;
  beforeAll(async () => {
    listeners = await listenPrivate();
    site = await startSite(listeners);
  });
  beforeEach(() => {
    listeners.arrivals.length = 0;
    site.reports.length = 0;
  });
  afterAll(async () => {
    await site?.close();
    await listeners?.close();
  });

  it('in a scan, a page, its iframes and its worker find no WebRTC or WebTransport and send nothing', async () => {
    const result = await crawlDirectly(`${site.url}/`, 1, policy);
    expect(result.pages).toMatchObject([{ url: `${site.url}/`, status: 200, error: null }]);
    // Every script ran to its end: an attempt that never ran would prove nothing.
    expect(where(site)).toEqual({
      page: 'rtc:absent webkit:absent blank:absent webtransport:absent',
      frame: 'rtc:absent webkit:absent blank:absent webtransport:absent',
      // A worker gets no init script; Chromium has no RTCPeerConnection there, and WebTransport
      // fails on the proxy (Chromium does not tunnel it) before any packet.
      worker: 'rtc:absent webkit:absent webtransport:opened',
    });
    expect(listeners.arrivals).toEqual([]);
  }, 60_000);

  it("with the browser's own settings alone, WebRTC and WebTransport open and still send nothing", async () => {
    const proxy = await GuardProxy.start(policy);
    const profile = freshProfile();
    const context = await chromium.launchPersistentContext(profile, scanLaunchOptions(CHROMIUM_PATH, proxy.url));
    try {
      await context.pages()[0].goto(`${site.url}/`);
      await expect.poll(() => site.reports.length, { timeout: 30_000 }).toBe(3);
    } finally {
      await context.close();
      await proxy.close();
      rmSync(profile, { recursive: true, force: true });
    }
    expect(where(site), JSON.stringify(listeners.arrivals)).toEqual({
      page: 'rtc:offer webkit:offer blank:offer webtransport:opened',
      frame: 'rtc:offer webkit:offer blank:offer webtransport:opened',
      worker: 'rtc:absent webkit:absent webtransport:opened',
    });
    expect(listeners.arrivals).toEqual([]);
  }, 60_000);
});
