import type { RequestListener } from 'node:http';
import { fileBrowser } from './browser.ts';
import { fileApp } from './file-app.ts';
import { fileSite } from './loopback-site.ts';

/**
 * What a test of the banner in a browser needs, for its file or describe block: the service
 * listening on loopback (`t.url`, limits out of the way), its tenants, one browser, and a shop on
 * another origin (`shop.url`, http://localhost:PORT) whose pages `handler` writes; `env`, settings
 * of the service besides.
 */
export function bannerShop<const Labels extends readonly string[]>(tenants: Labels, handler: RequestListener, env: Record<string, string> = {}) {
  const { t, tenants: made } = fileApp({ listen: true, env: { WIDGET_RATE_LIMIT_PER_MIN: '100000', RATE_LIMIT_MAX: '100000', ...env }, tenants });
  return { t, tenants: made, browser: fileBrowser(), shop: fileSite(handler) };
}
