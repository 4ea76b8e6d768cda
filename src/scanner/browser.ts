import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { NO_WEBRTC_SCRIPT } from './no-webrtc.ts';

/** Headless Chromium for a machine without a desktop; no background traffic of its own. */
const CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Nothing leaves the browser but through the guard proxy, which carries TCP only.
  // WebRTC sends no UDP of its own (no STUN, TURN or ICE packet to any address); what it could
  // send over TCP goes through the proxy. The profile's preferences say the same (below).
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  // No QUIC: HTTP/3 would be UDP.
  '--disable-quic',
  // Loopback is proxied too (Playwright's default, which an environment variable can turn off).
  '--proxy-bypass-list=<-loopback>',
  // The browser resolves no name itself (the guard does, for each request): no DNS query, plain
  // or over HTTPS, for a name a page chose, be it a WebRTC server's or a prefetch hint's. The
  // exception is the proxy's own address.
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
  // Chromium refuses to run as root with its sandbox on (containers).
  ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
];

/**
 * A fresh profile per scan. A browser context of its own would be an incognito profile, which
 * blocks third-party cookies and storage; a visitor's ordinary browser accepts them, and a scan
 * must see what visitors get, so the profile says so. WebRTC's IP handling policy and DNS over
 * HTTPS are set here as well as by flag: a flag Chromium no longer knows is ignored without a word.
 */
export function freshProfile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'consentry-scan-'));
  mkdirSync(join(dir, 'Default'));
  writeFileSync(join(dir, 'Default', 'Preferences'), JSON.stringify({
    profile: { cookie_controls_mode: 0, block_third_party_cookies: false },
    webrtc: { ip_handling_policy: 'disable_non_proxied_udp' },
  }));
  writeFileSync(join(dir, 'Local State'), JSON.stringify({ dns_over_https: { mode: 'off' } }));
  return dir;
}

/**
 * How the scanner's Chromium is launched on a profile: every request through `proxyUrl`, and the
 * settings above. `launchScanBrowser` adds the page-level lock (`no-webrtc.ts`).
 */
export const scanLaunchOptions = (chromiumPath: string, proxyUrl: string) => ({
  executablePath: chromiumPath,
  headless: true,
  args: CHROMIUM_ARGS,
  proxy: { server: proxyUrl },
  serviceWorkers: 'block' as const,
});

/** Below the API in the scheduler's eyes: on a busy machine the browser waits, not the requests. */
const BROWSER_NICENESS = 10;

/**
 * Lowers the priority of the Chromium processes this process started (Linux), and of no other.
 * Done right after the launch, while the browser and its zygotes are the only ones: the renderers
 * they fork later inherit it.
 */
function lowerBrowserPriority() {
  const children = new Map<number, number[]>();
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    return;
  }
  const lower = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      try {
        if (readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('chromium')) setPriority(child, BROWSER_NICENESS);
      } catch {
        // gone meanwhile
      }
      lower(child);
    }
  };
  lower(process.pid);
}

export const PROFILE_REMOVAL_RETRY_MS = 1_000;

/**
 * Removes a profile, and again a little later: Chromium's helper processes may still write to it
 * for a moment after the browser has closed.
 */
function removeProfile(profile: string) {
  const remove = () => rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
  try {
    remove();
  } catch {
    // retried below
  }
  setTimeout(() => {
    try {
      remove();
    } catch {
      // best effort: a profile left behind holds nothing but what the scanned site stored
    }
  }, PROFILE_REMOVAL_RETRY_MS).unref();
}

/**
 * A Chromium for one scan, every request of which goes through `proxyUrl`, on a fresh profile that
 * `close` removes with the browser.
 */
export async function launchScanBrowser(chromiumPath: string, proxyUrl: string): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = freshProfile();
  let context: BrowserContext | undefined;
  const close = async () => {
    await context?.close().catch(() => {});
    removeProfile(profile);
  };
  try {
    context = await chromium.launchPersistentContext(profile, scanLaunchOptions(chromiumPath, proxyUrl));
    lowerBrowserPriority();
    await context.addInitScript({ content: NO_WEBRTC_SCRIPT });
    return { context, close };
  } catch (error) {
    await close();
    throw error;
  }
}
