import type { BrowserContext, Cookie, Page } from 'playwright-core';
import type { AddressPolicy } from './address-guard.ts';
import { launchScanBrowser } from './browser.ts';
import { GuardProxy, type Refusal } from './guard-proxy.ts';
import { INSTRUMENT_SCRIPT, READ_FRAME_SCRIPT, type FrameReading } from './instrument.ts';
import { CrawlError } from './crawl-error.ts';

export type FoundStorageType = 'cookie' | 'local_storage' | 'session_storage';

export interface PageVisit {
  url: string;
  /** The HTTP status of the document; null when it did not load. */
  status: number | null;
  time_ms: number;
  /** `before_consent`: the first pass, nothing accepted; `after_consent`: after "Accept all". */
  pass: 'before_consent' | 'after_consent';
  error: string | null;
}

export interface FoundItem {
  name: string;
  domain: string;
  storage_type: FoundStorageType;
  first_seen_url: string;
  /** Cookies: when it expires (null: at the end of the session). */
  expires_at: string | null;
  duration: string;
  path: string;
  secure: boolean;
  http_only: boolean;
  same_site: 'Lax' | 'Strict' | 'None' | null;
  partitioned: boolean;
  set_before_consent: boolean;
  /** The response (Set-Cookie) or script that wrote it, when the browser tells. */
  set_by: string | null;
}

export interface CrawlResult {
  pages: PageVisit[];
  items: FoundItem[];
  refused: Refusal[];
  /** The site's own Consentry banner was found, so the second pass ran. */
  consent_banner: boolean;
}

export interface CrawlOptions {
  chromiumPath: string;
  startingUrl: string;
  maxPages: number;
  crawlSubdomains: boolean;
  policy: AddressPolicy;
  pageTimeoutMs: number;
  signal: AbortSignal;
  /** After every page visited; the caller's chance to record progress (its errors stop the crawl). */
  onPage?: (pagesVisited: number) => Promise<void>;
}


const SKIPPED_EXTENSIONS = /\.(pdf|zip|gz|tgz|rar|7z|exe|dmg|iso|jpe?g|png|gif|webp|avif|svg|ico|bmp|mp[34]|m4a|webm|ogg|wav|avi|mov|css|js|json|xml|txt|woff2?|ttf|eot)$/i;
/** How long the network must stay quiet for a page to count as settled, and the most we wait. */
const QUIET_MS = 200;
const SETTLE_MAX_MS = 5_000;
/** The longest name a storage item takes. */
const MAX_NAME = 255;
/** Items one scan keeps: a page that writes thousands of keys does not fill the account. */
const MAX_ITEMS = 1_000;
/** Where a Consentry banner counts a page view and records a visitor's choice (`POST /widget/{account_id}/views`, `…/consents`). */
const BANNER_POSTS = /\/widget\/[^/?#]+\/(?:views|consents)(?:[?#]|$)/;
/** Where a Consentry banner asks where its visitor is (`GET /widget/{account_id}/region`). */
const BANNER_REGION = /\/widget\/[^/?#]+\/region(?:[?#]|$)/;
/** Run in every page of the scanner's browser: the banner's page-view beacon is answered, never sent. */
const NO_VIEW_BEACON = `(() => {
  const send = navigator.sendBeacon && navigator.sendBeacon.bind(navigator);
  if (!send) return;
  navigator.sendBeacon = (url, data) => (${BANNER_POSTS}.test(String(url)) ? true : send(url, data));
})();`;

/**
 * `expires` (seconds since the epoch, -1 for session cookies) as a duration people read, in the
 * largest unit it rounds to (Max-Age=3600, read a moment later, is `1 hour`).
 */
export function durationOf(expires: number, now = Date.now()): string {
  if (expires < 0) return 'session';
  const seconds = Math.max(0, expires - now / 1000);
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return plural(Math.max(1, minutes), 'minute');
  const hours = Math.round(seconds / 3600);
  if (hours < 24) return plural(hours, 'hour');
  const days = Math.round(seconds / 86_400);
  return days % 365 === 0 ? plural(days / 365, 'year') : plural(days, 'day');
}

const normalDomain = (domain: string) => domain.replace(/^\./, '').toLowerCase();
const keyOf = (type: FoundStorageType, name: string, domain: string) => `${type}\n${name}\n${normalDomain(domain)}`;

/** The page's URL without its fragment; undefined for what is not http(s). */
function pageUrl(raw: string, base?: string): string | undefined {
  try {
    const url = new URL(raw, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

function scopeOf(startingUrl: string, crawlSubdomains: boolean) {
  const start = new URL(startingUrl);
  const base = start.hostname.replace(/^www\./, '');
  return (url: string): boolean => {
    const { hostname, pathname } = new URL(url);
    if (SKIPPED_EXTENSIONS.test(pathname)) return false;
    if (hostname === start.hostname) return true;
    return crawlSubdomains && (hostname === base || hostname.endsWith(`.${base}`));
  };
}

/** The `<loc>` URLs of a sitemap (or of a sitemap index). */
export function sitemapLocations(xml: string): string[] {
  return [...xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)].map((match) =>
    match[1].replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'"),
  );
}

/**
 * One scan, in a browser of its own (closed afterwards, so an idle server holds no browser) whose
 * every request goes through the guard proxy: the site crawled from its starting URL and sitemap
 * without consent, then, when the site runs its own Consentry banner, again after "Accept all".
 * Cookies come from the browser itself (third-party and partitioned ones included), storage keys
 * from every frame's origin.
 */
export async function crawl(options: CrawlOptions): Promise<CrawlResult> {
  const proxy = await GuardProxy.start(options.policy);
  let browser: Awaited<ReturnType<typeof launchScanBrowser>> | undefined;
  const onAbort = () => void browser?.context.close().catch(() => {});
  options.signal.addEventListener('abort', onAbort);
  try {
    browser = await launchScanBrowser(options.chromiumPath, proxy.url);
    if (options.signal.aborted) throw new CrawlError('The scan was cancelled');
    return await new Crawl(browser.context, proxy, options).run();
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    await browser?.close();
    await proxy.close();
  }
}

class Crawl {
  private readonly pages: PageVisit[] = [];
  private readonly items = new Map<string, FoundItem>();
  /** Who wrote what, by key: the first writer the browser told of. */
  private readonly setters = new Map<string, string>();
  private inFlight = 0;
  private lastActivity = Date.now();
  private pass: PageVisit['pass'] = 'before_consent';
  private readonly inScope: (url: string) => boolean;

  constructor(
    private readonly context: BrowserContext,
    private readonly proxy: GuardProxy,
    private readonly options: CrawlOptions,
  ) {
    this.inScope = scopeOf(options.startingUrl, options.crawlSubdomains);
  }

  async run(): Promise<CrawlResult> {
    const { context, options } = this;
    await context.addInitScript({ content: INSTRUMENT_SCRIPT });
    context.on('request', () => this.activity(1));
    context.on('requestfinished', () => this.activity(-1));
    context.on('requestfailed', () => this.activity(-1));
    context.on('response', (response) => void this.noteSetCookies(response.url(), () => response.headersArray()));
    // The scanner is not a visitor: its page loads are not counted as page views, nor its choice in
    // the site's banner recorded as a consent. The banner goes on without its receipt when a POST fails.
    await context.route(BANNER_POSTS, (route) => (route.request().method() === 'POST' ? route.abort() : route.fallback()));
    // Nor is it anywhere: the banner's mode must not depend on where the service runs. Refused its
    // region, the banner takes the strictest mode the account uses (opt-in unless the account uses
    // none), whose "Accept all" the second pass clicks.
    await context.route(BANNER_REGION, (route) => route.abort());
    // The page-view beacon leaves as the page does, where no route sees it: it is not sent at all.
    await context.addInitScript({ content: NO_VIEW_BEACON });
    const page = context.pages()[0] ?? (await context.newPage());

    const start = pageUrl(options.startingUrl)!;
    const queue: string[] = [start];
    const seen = new Set<string>([start]);
    const enqueue = (url: string | undefined) => {
      if (url && !seen.has(url) && this.inScope(url)) {
        seen.add(url);
        queue.push(url);
      }
    };
    const visited: string[] = [];
    let sitemapRead = false;
    while (queue.length > 0 && visited.length < options.maxPages) {
      const url = queue.shift()!;
      const links = await this.visit(page, url);
      visited.push(url);
      if (visited.length === 1 && this.pages[0].status === null) {
        throw new CrawlError(`The starting url could not be loaded: ${this.pages[0].error}`);
      }
      for (const link of links) enqueue(link);
      await options.onPage?.(visited.length);
      if (!sitemapRead) {
        sitemapRead = true;
        for (const link of await this.sitemap(page, start)) enqueue(link);
      }
    }

    const banner = await this.hasConsentBanner(page, start);
    if (banner) {
      this.pass = 'after_consent';
      await this.acceptAll(page, start);
      for (const url of visited) {
        await this.visit(page, url);
        await options.onPage?.(visited.length);
      }
    }
    return { pages: this.pages, items: [...this.items.values()], refused: this.proxy.refusals, consent_banner: banner };
  }

  private activity(delta: number) {
    this.inFlight = Math.max(0, this.inFlight + delta);
    this.lastActivity = Date.now();
  }

  private checkCancelled() {
    if (this.options.signal.aborted) throw new CrawlError('The scan was cancelled');
  }

  /** Waits until no request has been in flight for a moment, or gives up waiting. */
  private async settle() {
    const deadline = Date.now() + SETTLE_MAX_MS;
    while (Date.now() < deadline) {
      if (this.inFlight === 0 && Date.now() - this.lastActivity >= QUIET_MS) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Loads a page, records what it set, and returns the links it shows. */
  private async visit(page: Page, url: string): Promise<string[]> {
    this.checkCancelled();
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await page.goto(url, { waitUntil: 'load', timeout: this.options.pageTimeoutMs });
      status = response?.status() ?? null;
      if (response && (await response.headerValue('x-consentry-refused')) !== null) {
        error = (await response.text()).slice(0, 300);
        status = null;
      }
      await this.settle();
    } catch (err) {
      this.checkCancelled();
      const host = new URL(url).host;
      const refusal = this.proxy.refusals.find((r) => new URL(r.url).host === host);
      error = refusal?.reason ?? (err instanceof Error ? err.message.split('\n')[0] : String(err)).slice(0, 300);
    }
    this.checkCancelled();
    this.pages.push({ url, status, time_ms: Date.now() - started, pass: this.pass, error });
    if (status === null) return [];
    await this.collect(page, url);
    try {
      const hrefs = await page.evaluate(() => Array.from(document.querySelectorAll('a[href]'), (a) => (a as HTMLAnchorElement).href));
      return hrefs.map((href) => pageUrl(href)).filter((href): href is string => href !== undefined);
    } catch {
      return [];
    }
  }

  private async sitemap(page: Page, start: string): Promise<string[]> {
    const read = async (url: string) => {
      try {
        const response = await page.goto(url, { timeout: this.options.pageTimeoutMs });
        if (!response?.ok() || (await response.headerValue('x-consentry-refused')) !== null) return [];
        return sitemapLocations(await response.text());
      } catch {
        return [];
      }
    };
    const found: string[] = [];
    for (const loc of await read(new URL('/sitemap.xml', start).href)) {
      const url = pageUrl(loc);
      if (!url) continue;
      // A sitemap index lists sitemaps: one level down is read.
      if (/\.xml$/i.test(new URL(url).pathname)) {
        if (new URL(url).host !== new URL(start).host) continue;
        for (const inner of await read(url)) {
          const innerUrl = pageUrl(inner);
          if (innerUrl) found.push(innerUrl);
        }
      } else {
        found.push(url);
      }
    }
    return found;
  }

  private async hasConsentBanner(page: Page, start: string): Promise<boolean> {
    try {
      if (pageUrl(page.url()) !== start) {
        await page.goto(start, { waitUntil: 'load', timeout: this.options.pageTimeoutMs });
        await this.settle();
      }
      return await page.evaluate(() => typeof (window as { Consentry?: unknown }).Consentry === 'object');
    } catch {
      return false;
    }
  }

  /** Accepts everything through the site's own banner, as a visitor would. */
  private async acceptAll(page: Page, start: string) {
    this.checkCancelled();
    const started = Date.now();
    try {
      await page.getByRole('button', { name: 'Accept all', exact: true }).first().click({ timeout: this.options.pageTimeoutMs });
      await this.settle();
      await this.collect(page, start);
    } catch (err) {
      this.checkCancelled();
      const reason = (err instanceof Error ? err.message.split('\n')[0] : String(err)).slice(0, 200);
      this.pages.push({ url: start, status: null, time_ms: Date.now() - started, pass: 'after_consent', error: `"Accept all" could not be clicked: ${reason}` });
    }
  }

  private async noteSetCookies(url: string, headers: () => Promise<Array<{ name: string; value: string }>>) {
    try {
      const host = new URL(url).hostname;
      for (const header of await headers()) {
        if (header.name.toLowerCase() !== 'set-cookie') continue;
        for (const line of header.value.split('\n')) {
          const name = line.split(';')[0].split('=')[0].trim();
          const domain = /;\s*domain=([^;]+)/i.exec(line)?.[1]?.trim() ?? host;
          const key = keyOf('cookie', name, domain);
          if (name && !this.setters.has(key)) this.setters.set(key, url);
        }
      }
    } catch {
      // the response went with its page
    }
  }

  private found(item: Omit<FoundItem, 'set_before_consent' | 'first_seen_url' | 'set_by'>, url: string) {
    // A name no storage item can have (the API takes 255 characters) is not kept.
    if (item.name.length > MAX_NAME) return;
    const key = keyOf(item.storage_type, item.name, item.domain);
    const known = this.items.get(key);
    if (known) {
      Object.assign(known, item, { domain: known.domain });
      return;
    }
    if (this.items.size >= MAX_ITEMS) return;
    this.items.set(key, { ...item, first_seen_url: url, set_before_consent: this.pass === 'before_consent', set_by: null });
  }

  /** Everything the browser holds now, and who wrote it. */
  private async collect(page: Page, url: string) {
    const now = Date.now();
    const cookies: Cookie[] = await this.context.cookies();
    for (const cookie of cookies) {
      this.found({
        name: cookie.name,
        domain: cookie.domain,
        storage_type: 'cookie',
        expires_at: cookie.expires < 0 ? null : new Date(cookie.expires * 1000).toISOString(),
        duration: durationOf(cookie.expires, now),
        path: cookie.path,
        secure: cookie.secure,
        http_only: cookie.httpOnly,
        // Chromium reports no SameSite attribute as Lax, which is also how it treats such cookies.
        same_site: cookie.sameSite ?? null,
        partitioned: cookie.partitionKey !== undefined,
      }, url);
    }
    for (const frame of page.frames()) {
      let reading: FrameReading;
      try {
        reading = (await frame.evaluate(READ_FRAME_SCRIPT)) as FrameReading;
      } catch {
        continue;
      }
      if (reading.protocol !== 'http:' && reading.protocol !== 'https:') continue;
      const storage = (type: 'local_storage' | 'session_storage', names: string[]) => {
        for (const name of names) {
          this.found({
            name, domain: reading.host, storage_type: type, expires_at: null,
            duration: type === 'local_storage' ? 'persistent' : 'session',
            path: '/', secure: false, http_only: false, same_site: null, partitioned: false,
          }, url);
        }
      };
      storage('local_storage', reading.local);
      storage('session_storage', reading.session);
      for (const [type, name, script] of reading.writes) {
        if (!script) continue;
        const domain = type === 'cookie' ? this.cookieDomainOf(name, reading.host) : reading.host;
        const key = keyOf(type, name, domain);
        if (!this.setters.has(key)) this.setters.set(key, script);
      }
    }
    for (const [key, item] of this.items) {
      if (item.set_by === null) item.set_by = this.setters.get(key) ?? null;
    }
  }

  /** The domain a cookie written by script in a frame of `host` was stored under. */
  private cookieDomainOf(name: string, host: string): string {
    for (const item of this.items.values()) {
      if (item.storage_type !== 'cookie' || item.name !== name) continue;
      const domain = normalDomain(item.domain);
      if (host === domain || host.endsWith(`.${domain}`)) return item.domain;
    }
    return host;
  }
}
