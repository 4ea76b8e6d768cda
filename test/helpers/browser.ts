import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';

/** Debian's Chromium; nothing in this project downloads a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
const INSTALL = 'apt-get install -y chromium';

/** Flags for a root user on a machine without outside network (see the README's Tests section). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const installed = existsSync(CHROMIUM_PATH);
if (!installed && process.env.CI) {
  throw new Error(`Browser tests need Debian's chromium at ${CHROMIUM_PATH} under CI: ${INSTALL}`);
}
if (!installed) {
  console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is missing. Install it with: ${INSTALL}`);
}

/** A describe block that runs only where Chromium is installed (always under CI, where its absence fails). */
export const describeBrowser = installed ? describe : describe.skip;

/**
 * Its clock in New York's time, whatever the machine's: a clock that no US zone keeps settles the
 * banner's mode as opt-in with no request under most rules (region.ts), which a test of the region's
 * request would not see. A test of the clock sets its context's `timezoneId`.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, env: { ...process.env, TZ: 'America/New_York' } });
}

/**
 * One browser for the tests of a file (or of the describe block it is called in): launched in a
 * beforeAll, closed in an afterAll. Each test opens its own context in it.
 */
export function fileBrowser(): Pick<Browser, 'newContext' | 'newPage'> {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });
  const launched = () => {
    if (!browser) throw new Error('The browser is launched before the tests: open contexts inside them');
    return browser;
  };
  return {
    newContext: (options) => launched().newContext(options),
    newPage: (options) => launched().newPage(options),
  };
}

/**
 * A new visitor: fresh cookies and storage, the page's uncaught errors collected; `gpc` makes the
 * browser send Global Privacy Control, `locale` its languages.
 */
export async function newVisitor(browser: Pick<Browser, 'newContext'>, options: { gpc?: boolean; locale?: string } = {}): Promise<{ context: BrowserContext; page: Page; errors: Error[] }> {
  const context = await browser.newContext(options.locale ? { locale: options.locale } : {});
  // A wait that runs out names what it waited for, before the test's own time ends without a word.
  context.setDefaultTimeout(10_000);
  if (options.gpc) {
    await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true }));
  }
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  return { context, page, errors };
}

/**
 * A banner in a real page, timed by a browser the suite shares two cores with, now and then waits
 * past its test's time under CI where it never does alone (one test in four full runs, a different
 * one each time). Such a block runs a failed test once more under CI, and a test that passes only
 * then is printed with its first error, so that it is seen and not hidden. Use it with
 * `describeBrowser(name, RETRIED_UNDER_CI, …)` and call `reportRetries()` inside.
 */
export const RETRIED_UNDER_CI = { retry: process.env.CI ? 1 : 0 };

export function reportRetries(): void {
  afterEach(({ task }) => {
    const result = task.result;
    if (result?.state !== 'pass' || !result.retryCount) return;
    console.warn(`FLAKY, passed on retry ${result.retryCount}: ${task.name}: ${result.errors?.map((error) => error.message).join(' | ')}`);
  });
}
