import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TCF_BLOCK, buildBanner } from '../../../banner/build.ts';
import { projectRoot } from '../../../banner/paths.ts';
import { fileApp } from '../../helpers/file-app.ts';

const { t } = fileApp({ env: { WIDGET_RATE_LIMIT_PER_MIN: '10000', RATE_LIMIT_MAX: '10000' } });

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('GET /widget/tcf.{hash}.js', () => {
  it('serves the TCF file under its content hash, for good, within its budget of 60 KB gzip', async () => {
    const { name } = await t.services.bannerScripts.chunk('tcf');
    expect(name).toMatch(/^tcf\.[0-9a-f]{16}\.js$/);
    const res = await get(`/widget/${name}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.body).toContain('__consentryTcf');
    const gz = await get(`/widget/${name}`, { 'accept-encoding': 'gzip' });
    expect(gunzipSync(gz.rawPayload).toString()).toBe(res.body);
    // Measured at 39.3 KB gzip: cmpapi and core 12.2 KB, @iabgpp/cmpapi for tcfeuv2 about 19, the screens and their six languages the rest.
    expect(gz.rawPayload.length).toBeLessThan(60 * 1024);
    for (const url of ['/widget/tcf.0000000000000000.js', '/widget/tcf.x.js']) {
      const missing = await get(url);
      expect(missing.statusCode).toBe(404);
      expect(missing.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('the banner without TCF', () => {
  it('carries none of it: the TCF blocks of the shared sources are all that differs', async () => {
    const built = await buildBanner();
    expect(built.banner).not.toContain('__tcfapi');
    expect(built.banner).not.toContain(built.chunks.tcf.name);
    expect(built.bannerTcf).toContain('__tcfapiLocator');
    expect(built.bannerTcf).toContain(built.chunks.tcf.name);
    // The stub and the loader cost the TCF accounts' script little: measured at 1.6 KB gzip.
    expect(built.bannerTcf.length - built.banner.length).toBeLessThan(8 * 1024);
  });

  it('leaves no TCF code in a shared source once its blocks are taken out', () => {
    const dir = join(projectRoot(), 'banner', 'src');
    // config.ts declares the configuration's types (BannerTcf among them), which the compiler erases.
    const shared = readdirSync(dir).filter((file) => file.endsWith('.ts') && !file.startsWith('tcf') && !file.endsWith('.d.ts') && file !== 'config.ts');
    expect(shared).toContain('main.ts');
    let blocks = 0;
    for (const file of shared) {
      const text = readFileSync(join(dir, file), 'utf8');
      blocks += text.match(TCF_BLOCK)?.length ?? 0;
      // Comments may speak of the TCF; code outside the blocks may not use it.
      const code = text.replace(TCF_BLOCK, '').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      expect(code, file).not.toMatch(/tcf/i);
    }
    expect(blocks).toBeGreaterThanOrEqual(8);
  });
});
