/**
 * The website of bench/banner-timing.ts, in a process of its own on PORT: `/library`, a page with
 * vanilla-cookieconsent alone, and `/ours`, the same page with our script for ACCOUNT_ID (with
 * `data-region` when `?region=` says so). Both come from 127.0.0.1:PORT, another origin than the
 * page's localhost:PORT, as from a CDN: the library's files, and our script as a CDN in front of the
 * service (SERVICE) keeps it, fetched once; the region request passes through to the service.
 */
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';

const PORT = Number(process.env.PORT);
const SERVICE = process.env.SERVICE ?? '';
const CDN = `http://127.0.0.1:${PORT}`;
const SCRIPT = `/widget/${process.env.ACCOUNT_ID}.js`;
const LIBRARY = join('node_modules', 'vanilla-cookieconsent', 'dist');
const FILES: Record<string, [string, string]> = {
  '/cookieconsent.css': [readFileSync(join(LIBRARY, 'cookieconsent.css'), 'utf8'), 'text/css'],
  '/cookieconsent.umd.js': [readFileSync(join(LIBRARY, 'cookieconsent.umd.js'), 'utf8'), 'text/javascript'],
  [SCRIPT]: [await (await fetch(SERVICE + SCRIPT)).text(), 'text/javascript'],
};

/** What each page holds besides the banner: a little text, the same for every variant. */
const BODY = `<main><h1>Demo shop</h1>${'<p>Things for sale, described at some length for a page of ordinary size.</p>'.repeat(40)}</main>`;

/** The library's configuration, as our script configures it for the demo account. */
const CONFIG = {
  revision: 0,
  hideFromBots: false,
  manageScriptTags: false,
  autoClearCookies: false,
  disablePageInteraction: false,
  cookie: { name: 'cc_cookie', sameSite: 'Lax' },
  guiOptions: {
    consentModal: { layout: 'box', position: 'bottom right', equalWeightButtons: true },
    preferencesModal: { layout: 'box', equalWeightButtons: true },
  },
  categories: { necessary: { enabled: true, readOnly: true }, analytics: {}, marketing: {}, functional: {} },
  language: {
    default: 'en',
    translations: {
      en: {
        consentModal: {
          title: 'We value your privacy',
          description: 'This site uses cookies and similar storage. Some are needed for it to work; others are used only if you agree.',
          acceptAllBtn: 'Accept all',
          acceptNecessaryBtn: 'Reject all',
          showPreferencesBtn: 'Manage preferences',
        },
        preferencesModal: {
          title: 'Privacy preferences',
          acceptAllBtn: 'Accept all',
          acceptNecessaryBtn: 'Reject all',
          savePreferencesBtn: 'Save preferences',
          sections: [{ title: 'Necessary', linkedCategory: 'necessary' }, { title: 'Analytics', linkedCategory: 'analytics' }],
        },
      },
    },
  },
};

const page = (head: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Demo shop</title>\n${head}\n</head><body>${BODY}</body></html>`;

const LIBRARY_PAGE = page(`<link rel="stylesheet" href="${CDN}/cookieconsent.css">
<script src="${CDN}/cookieconsent.umd.js"></script>
<script>document.addEventListener('DOMContentLoaded', () => CookieConsent.run(${JSON.stringify(CONFIG)}));</script>`);

/** What the CDN passes through: the service's answer, with the headers the browser reads. */
async function passThrough(path: string, origin: string | undefined, response: ServerResponse): Promise<void> {
  const answer = await fetch(SERVICE + path, { headers: origin ? { origin } : {} });
  for (const name of ['content-type', 'cache-control', 'vary', 'access-control-allow-origin', 'access-control-allow-credentials']) {
    const value = answer.headers.get(name);
    if (value !== null) response.setHeader(name, value);
  }
  response.statusCode = answer.status;
  response.end(Buffer.from(await answer.arrayBuffer()));
}

createServer((request, response) => {
  const url = new URL(request.url ?? '/', CDN);
  const file = FILES[url.pathname];
  if (file) {
    response.setHeader('content-type', file[1]);
    return response.end(file[0]);
  }
  if (url.pathname.startsWith('/widget/')) return void passThrough(url.pathname, request.headers.origin, response);
  response.setHeader('content-type', 'text/html; charset=utf-8');
  if (url.pathname === '/library') return response.end(LIBRARY_PAGE);
  const region = url.searchParams.get('region');
  response.end(page(`<script src="${CDN}${SCRIPT}"${region ? ` data-region="${region}"` : ''}></script>`));
}).listen(PORT, '127.0.0.1');
