import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeBrowser, launchBrowser } from '../helpers/browser.ts';

// No database at all: it runs in the embedded project only (vitest.config.ts).

describeBrowser('the test browser', () => {
  let browser: Browser;
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>t</title><button onclick="this.textContent=\'clicked\'">press</button>');
  });
  beforeAll(async () => {
    browser = await launchBrowser();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await browser?.close();
    server.close();
  });

  it('renders a loopback page and runs its script', async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.getByRole('button', { name: 'press' }).click();
    expect(await page.getByRole('button').textContent()).toBe('clicked');
  });
});
