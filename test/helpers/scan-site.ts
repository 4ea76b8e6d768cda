import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crawl } from '../../src/scanner/crawl.ts';
import { CHROMIUM_PATH } from './browser.ts';

/**
 * The website the scanner tests crawl, on loopback addresses only:
 * - 127.0.0.1 — the site itself: linked pages, a sitemap with a page no link reaches, a cookie by
 *   Set-Cookie and one by script, localStorage and sessionStorage keys, a link off-site, a redirect
 *   to another address, and a tiny stand-in for the Consentry banner ("Accept all" sets a consent
 *   cookie and loads a script that only runs after consent);
 * - 127.0.0.2 — a third party: a script and an iframe that set cookies (one partitioned) and storage;
 * - 127.0.0.3 — the off-site target of a link that must never be followed;
 * - 127.0.0.4 — the target of the redirect, a "private" address in the SSRF tests.
 * Every host counts the requests it receives.
 */
export interface ScanSite {
  url: string;
  thirdParty: string;
  offSite: string;
  privateTarget: string;
  hits: { site: string[]; thirdParty: string[]; offSite: string[]; privateTarget: string[] };
  /** Pages are answered after this many milliseconds (to catch a scan in the middle). */
  delayMs: number;
  /** The cookie the stand-in banner keeps the choice in (as the real one does, under the account's name). */
  consentCookie: string;
  close(): Promise<void>;
}

export interface ScanSiteOptions {
  /** Extra pages /extra/1 … /extra/N, chained by links (the 50-page benchmark). */
  extraPages?: number;
  /** Leave the banner out: no second pass. */
  banner?: boolean;
}

const YEAR = 365 * 86_400;

async function listen(host: string, handler: (req: IncomingMessage, res: ServerResponse) => unknown): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}` };
}

export async function startScanSite(options: ScanSiteOptions = {}): Promise<ScanSite> {
  const hits: ScanSite['hits'] = { site: [], thirdParty: [], offSite: [], privateTarget: [] };
  const servers: Server[] = [];
  const state = { delayMs: 0, consentCookie: 'consentry_consent' };

  const third = await listen('127.0.0.2', (req, res) => {
    hits.thirdParty.push(req.url ?? '');
    if (req.url === '/tracker.js') {
      res.setHeader('set-cookie', 'tp_script=1; Path=/; Max-Age=2592000; SameSite=None; Secure');
      res.setHeader('content-type', 'text/javascript');
      // Like an ad pixel: a first-party cookie written by a third party's script.
      res.end(`document.cookie = '_fbp=fb.1.1700000000000.123; Path=/; Max-Age=${90 * 86_400}; SameSite=Lax';`);
    } else if (req.url === '/frame.html') {
      res.setHeader('set-cookie', [
        'tp_frame=1; Path=/; Max-Age=86400; SameSite=None; Secure',
        'tp_part=1; Path=/; Max-Age=3600; SameSite=None; Secure; Partitioned',
      ]);
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>widget</title><script>localStorage.setItem("tp_ls", "1")</script><p>third-party widget</p>');
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  servers.push(third.server);
  const off = await listen('127.0.0.3', (req, res) => {
    hits.offSite.push(req.url ?? '');
    res.setHeader('set-cookie', 'off_site=1; Path=/');
    res.end('<!doctype html><title>elsewhere</title>');
  });
  servers.push(off.server);
  const priv = await listen('127.0.0.4', (req, res) => {
    hits.privateTarget.push(req.url ?? '');
    res.setHeader('set-cookie', 'private_target=1; Path=/');
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>internal</title><p>an internal service</p>');
  });
  servers.push(priv.server);

  const extra = options.extraPages ?? 0;
  const withBanner = options.banner ?? true;
  const banner = () => `
<div id="banner"><button type="button" id="accept">Accept all</button></div>
<script>
  (function () {
    var accepted = function () { return document.cookie.split('; ').indexOf('${state.consentCookie}=all') >= 0; };
    var listeners = [];
    var unlock = function () { var s = document.createElement('script'); s.src = '/js/gated.js'; document.head.appendChild(s); };
    window.Consentry = {
      getConsent: function () { return accepted() ? { accept_type: 'all' } : null; },
      acceptedCategory: function () { return accepted(); },
      showPreferences: function () {},
      onChange: function (cb) { listeners.push(cb); },
    };
    document.getElementById('accept').addEventListener('click', function () {
      document.cookie = '${state.consentCookie}=all; Path=/; Max-Age=${YEAR}';
      unlock();
      listeners.forEach(function (cb) { cb(window.Consentry.getConsent()); });
    });
    if (accepted()) unlock();
  })();
</script>`;
  const layout = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>${body}${withBanner ? banner() : ''}</body></html>`;
  const nav = '<a href="/">Home</a> <a href="/about">About</a> <a href="/products">Products</a> <a href="/contact#form">Contact</a> <a href="/blog">Blog</a>';
  const site = await listen('127.0.0.1', async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits.site.push(path);
    if (state.delayMs > 0 && !path.endsWith('.js')) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    const html = (body: string) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(body);
    };
    switch (path) {
      case '/':
        res.setHeader('set-cookie', 'fp_session=abc; Path=/; HttpOnly; SameSite=Strict');
        return html(layout('Home', `${nav}
          <a href="http://127.0.0.3:${new URL(off.url).port}/">Elsewhere</a>
          <a href="/go-internal">Status</a>
          <a href="mailto:team@example.com">Mail</a>
          ${extra > 0 ? '<a href="/extra/1">More</a>' : ''}
          <script src="/js/app.js"></script>
          <script src="${third.url}/tracker.js"></script>
          <iframe src="${third.url}/frame.html" title="widget"></iframe>`));
      case '/about':
      case '/contact':
      case '/blog':
        return html(layout(path.slice(1), nav));
      case '/products':
        return html(layout('Products', `${nav} <a href="/products/1">One</a> <a href="/products/1#reviews">Reviews</a>`));
      case '/products/1':
        return html(layout('Product 1', `${nav}<script>sessionStorage.setItem('ss_cart', '1')</script>`));
      case '/hidden':
        res.setHeader('set-cookie', 'hidden_cookie=1; Path=/; Max-Age=604800; SameSite=Lax');
        return html(layout('Only in the sitemap', 'nothing links here'));
      case '/go-internal':
        res.statusCode = 302;
        res.setHeader('location', `${priv.url}/admin`);
        return res.end();
      case '/sitemap.xml':
        res.setHeader('content-type', 'application/xml');
        return res.end(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>${site.url}/</loc></url>
  <url><loc>${site.url}/about</loc></url>
  <url><loc>${site.url}/hidden</loc></url>
</urlset>`);
      case '/js/app.js':
        res.setHeader('content-type', 'text/javascript');
        return res.end(`document.cookie = 'js_pref=dark; Path=/; Max-Age=${YEAR}; SameSite=Lax';
localStorage.setItem('ls_theme', 'dark');`);
      case '/js/gated.js':
        res.setHeader('content-type', 'text/javascript');
        return res.end(`document.cookie = '_ga_TEST123=GS1; Path=/; Max-Age=${2 * YEAR}';
localStorage.setItem('gated_ls', '1');`);
      default: {
        const match = /^\/extra\/(\d+)$/.exec(path);
        const n = Number(match?.[1]);
        if (match && n >= 1 && n <= extra) {
          return html(layout(`Extra ${n}`, `${nav}${n < extra ? `<a href="/extra/${n + 1}">Next</a>` : ''}`));
        }
        res.statusCode = 404;
        return html(layout('Not found', nav));
      }
    }
  });
  servers.push(site.server);

  return {
    url: site.url,
    thirdParty: third.url,
    offSite: off.url,
    privateTarget: priv.url,
    hits,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    get consentCookie() {
      return state.consentCookie;
    },
    set consentCookie(value: string) {
      state.consentCookie = value;
    },
    async close() {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

/**
 * The crawler run directly, as a scan runs it but without the queue: Debian's Chromium, no
 * subdomains, 10 s a page; `policy` says which addresses it may reach.
 */
export function crawlDirectly(startingUrl: string, maxPages: number, policy: (address: string) => boolean) {
  return crawl({ chromiumPath: CHROMIUM_PATH, startingUrl, maxPages, crawlSubdomains: false, policy, pageTimeoutMs: 10_000, signal: new AbortController().signal });
}
