import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { describe } from 'vitest';

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

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
