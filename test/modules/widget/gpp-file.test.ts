import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fileApp } from '../../helpers/file-app.ts';

const { t, tenants: [tenant] } = fileApp({ env: { WIDGET_RATE_LIMIT_PER_MIN: '10000', RATE_LIMIT_MAX: '10000' }, tenants: ['Gpp'] });

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

/** The GPP file the served banner names. */
async function namedFile(): Promise<string> {
  const banner = await get(`/widget/${tenant.account.id}.js`);
  expect(banner.statusCode).toBe(200);
  const names = [...new Set(banner.body.match(/gpp\.[0-9a-f]{16}\.js/g))];
  expect(names).toHaveLength(1);
  return names[0];
}

describe('GET /widget/gpp.{hash}.js', () => {
  it('serves the file the banner names, under its content hash, for good, to any site', async () => {
    const name = await namedFile();
    const res = await get(`/widget/${name}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(name).toBe(`gpp.${createHash('sha256').update(res.body).digest('hex').slice(0, 16)}.js`);
    // The IAB's library, left in the global the banner reads.
    expect(res.body).toContain('__consentryGpp');
    expect(res.body).toContain('usnat');
    expect((await get(`/widget/${name}`, { 'if-none-match': String(res.headers.etag) })).statusCode).toBe(304);

    const gz = await get(`/widget/${name}`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(res.body);
    const br = await get(`/widget/${name}`, { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(res.body);
    // The library is large; only visitors in opt-out regions pay for it. Measured at 19.2 KB gzip.
    expect(gz.rawPayload.length).toBeLessThan(24 * 1024);
  });

  it('does not know another hash: 404 with a JavaScript comment, never cached', async () => {
    for (const url of ['/widget/gpp.0000000000000000.js', '/widget/gpp.x.js']) {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatch(/^\/\*[^]*\*\/\n$/);
    }
  });

  it('leaves the library out of the banner every visitor loads', async () => {
    const banner = await get(`/widget/${tenant.account.id}.js`);
    expect(banner.body).toContain('__gppLocator');
    expect(banner.body).not.toContain('MspaCoveredTransaction');
  });
});
