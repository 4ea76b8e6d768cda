/**
 * The dashboard's built files served at /. No database plays a part: the embedded project only
 * (vitest.config.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startApp, type TestApp } from '../../helpers/app.ts';

/** A built site of our own making, so that these tests need no build of the real one. */
const dir = mkdtempSync(join(tmpdir(), 'consentry-web-'));
const INDEX = '<!doctype html><title>Consentry</title><script type="module" src="/assets/app-1a2b.js"></script>';
const SCRIPT = `console.log(${JSON.stringify('dashboard '.repeat(400))});`;
mkdirSync(join(dir, 'assets'));
writeFileSync(join(dir, 'index.html'), INDEX);
writeFileSync(join(dir, 'assets', 'app-1a2b.js'), SCRIPT);
writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');

let t: TestApp;
beforeAll(async () => { t = await startApp({ env: { WEB_DIR: dir } }); });
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers });

describe('the dashboard at /', () => {
  it('serves its page with a strict content security policy, revalidated by ETag', async () => {
    const page = await get('/');
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe(INDEX);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const etag = String(page.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get('/', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await get('/', { 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it('answers the page for the routes of the app, with their query strings', async () => {
    for (const url of ['/sign-in', '/invitations/AbC_123-x', '/reset-password/tok3n', '/accounts/0193a/storage-items?page=2', '/partner/groups/1/']) {
      const res = await get(url);
      expect([url, res.statusCode, res.body]).toEqual([url, 200, INDEX]);
    }
  });

  it('serves built files compressed as the client accepts, and hashed ones as immutable', async () => {
    const br = await get('/assets/app-1a2b.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(SCRIPT);
    expect(br.rawPayload.length).toBeLessThan(SCRIPT.length / 10);

    const gzip = await get('/assets/app-1a2b.js', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(SCRIPT);

    const plain = await get('/assets/app-1a2b.js', { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
    expect(br.headers.etag).toBe(plain.headers.etag);

    const icon = await get('/favicon.svg', { 'accept-encoding': 'br' });
    expect(icon.headers['content-encoding']).toBeUndefined();
    expect(icon.headers['content-type']).toBe('image/svg+xml');
  });

  it('never shadows the API, the widget, the docs, the health checks or the metrics', async () => {
    const notFound = { errors: [{ code: 404, message: 'Not found' }] };
    for (const url of ['/api/v1/nothing-here', '/api', '/widget/x/nothing', '/healthz/x', '/readyz/x', '/docs/nothing.html', '/metrics']) {
      const res = await call(t.app, 'GET', url);
      expect([url, res.status, res.body]).toEqual([url, 404, notFound]);
    }
    // A path parameter past the router's length limit is still the route's own 404.
    for (const url of [`/api/v1/categories/${'a'.repeat(201)}`, `/widget/${'a'.repeat(201)}/config.json`]) {
      expect(await call(t.app, 'GET', url)).toMatchObject({ status: 404, body: { errors: [{ code: 404, message: 'Record not found' }] } });
    }
    expect((await call(t.app, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await call(t.app, 'GET', '/api/v1/me')).status).toBe(401);
    const docs = await call(t.app, 'GET', '/api/v1/openapi.json');
    expect(docs.body.openapi).toBe('3.1.0');
  });

  it('answers 404 for a missing file, and other methods as before', async () => {
    expect((await get('/assets/missing-1234.js')).statusCode).toBe(404);
    expect((await get('/robots.txt')).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/sign-in' })).statusCode).toBe(404);
    const head = await t.app.inject({ method: 'HEAD', url: '/accounts' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('tells the page in its head when sign-up is turned off, and only then', async () => {
    expect((await get('/sign-up')).body).not.toContain('consentry-sign-up');
    const closed = await startApp({ env: { WEB_DIR: dir, SIGNUP_ENABLED: 'false' } });
    try {
      const page = await closed.app.inject({ method: 'GET', url: '/sign-up' });
      expect(page.body).toBe(INDEX.replace('<!doctype html>', '<!doctype html><meta name="consentry-sign-up" content="off">'));
    } finally {
      await closed.close();
    }
  });

  it('runs the API without a built dashboard, answering 404 at /', async () => {
    const bare = await startApp({ env: { WEB_DIR: join(dir, 'not-built') } });
    try {
      expect((await call(bare.app, 'GET', '/')).status).toBe(404);
      expect((await call(bare.app, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});
