import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Headless Chromium for a machine without a desktop; no background traffic of its own. */
const CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // WebRTC may not open UDP outside the proxy: every connection passes the address guard.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  // Chromium refuses to run as root with its sandbox on (containers).
  ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
];

/**
 * A fresh profile per scan. A browser context of its own would be an incognito profile, which
 * blocks third-party cookies and storage; a visitor's ordinary browser accepts them, and a scan
 * must see what visitors get, so the profile says so.
 */
function freshProfile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'consentry-scan-'));
  mkdirSync(join(dir, 'Default'));
  writeFileSync(join(dir, 'Default', 'Preferences'), JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }));
  return dir;
}

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
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: CHROMIUM_ARGS,
      proxy: { server: proxyUrl },
      serviceWorkers: 'block',
    });
    lowerBrowserPriority();
    return {
      context,
      async close() {
        await context.close().catch(() => {});
        removeProfile(profile);
      },
    };
  } catch (error) {
    removeProfile(profile);
    throw error;
  }
}
