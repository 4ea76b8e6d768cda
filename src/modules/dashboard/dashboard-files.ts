import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Encoding } from '../../http/accept-encoding.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt', '.map', '.webmanifest']);
/** Below this a compressed body saves less than its headers cost. */
const MIN_COMPRESS_BYTES = 512;

export interface SiteFile {
  type: string;
  etag: string;
  /** Vite names what it builds into `assets/` by their content hash: those never change under one name. */
  immutable: boolean;
  body(encoding: Encoding): Buffer;
  /** The encodings worth offering for this file, best first. */
  encodings: Encoding[];
}

function siteFile(path: string, immutable: boolean, edit: (raw: Buffer) => Buffer = (raw) => raw): SiteFile {
  const raw = edit(readFileSync(path));
  const extension = extname(path);
  const compressible = COMPRESSIBLE.has(extension) && raw.length >= MIN_COMPRESS_BYTES;
  // Compressed once, on first demand, then kept: the whole app is a few hundred kilobytes.
  const cache = new Map<Encoding, Buffer>([['identity', raw]]);
  const compress: Record<Exclude<Encoding, 'identity'>, () => Buffer> = {
    br: () => brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
    gzip: () => gzipSync(raw, { level: 9 }),
  };
  return {
    type: TYPES[extension] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 27)}"`,
    immutable,
    encodings: compressible ? ['br', 'gzip', 'identity'] : ['identity'],
    body(encoding) {
      let body = cache.get(encoding);
      if (!body) {
        body = compress[encoding as Exclude<Encoding, 'identity'>]();
        cache.set(encoding, body);
      }
      return body;
    },
  };
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** What the page is told of the server before it asks anything: whether anyone may sign up. */
export interface SiteSettings {
  signupEnabled: boolean;
}

/**
 * The page's `<head>` says what the server allows (`<meta name="consentry-sign-up" content="off">`
 * when sign-up is turned off), so that the dashboard neither offers nor shows a form the API refuses.
 */
function withSettings(settings: SiteSettings) {
  const meta = '<meta name="consentry-sign-up" content="off">';
  return (raw: Buffer) => (settings.signupEnabled ? raw : Buffer.from(raw.toString('utf8').replace(/<head[^>]*>|^<!doctype html>/i, (at) => `${at}${meta}`)));
}

/**
 * The built dashboard (`npm run build` writes it to `dist/web`), read into memory once: URL path →
 * file. Undefined when it was not built, so that the API still runs without it.
 */
export function loadSite(dir: string, settings: SiteSettings): Map<string, SiteFile> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const files = new Map<string, SiteFile>();
  for (const path of walk(dir)) {
    const url = `/${relative(dir, path).split(sep).join('/')}`;
    files.set(url, siteFile(path, url.startsWith('/assets/'), url === '/index.html' ? withSettings(settings) : undefined));
  }
  return files;
}
