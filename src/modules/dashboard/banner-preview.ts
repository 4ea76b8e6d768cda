import type { FastifyInstance } from 'fastify';

/**
 * The page the banner editor frames to preview the real banner script with unsaved changes. It is
 * sandboxed by its own policy (an opaque origin: it can reach neither the dashboard's storage, where
 * the token is, nor its cookies), may be framed only by the dashboard, and runs only what the
 * dashboard posts to it: the script `POST /api/v1/banner/preview` answered, in the language the
 * editor shows (the page's `lang` and the browser's languages both ask for it, whatever order the
 * account looks for them in), as a visitor of the region the editor chose (`data-region` on the script,
 * as a site whose server knows its visitor's region sets it). The banner keeps its
 * choice in a cookie and local storage, which an opaque origin may not use, so the page gives it
 * in-memory stand-ins first. Its policy allows no connection (`connect-src 'none'`, images only as
 * data: addresses): a choice made in the preview is recorded nowhere, no page view is counted, and the
 * region is never asked of the service.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Banner preview</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:1.5rem;color:#334;background:#f4f6f9}p{max-width:32rem}</style>
</head>
<body>
<p>A page of your website. The banner below is the one your visitors will see.</p>
<script>
(function () {
  var jar = {};
  Object.defineProperty(Document.prototype, 'cookie', {
    configurable: true,
    get: function () { return Object.keys(jar).map(function (k) { return k + '=' + jar[k]; }).join('; '); },
    set: function (value) {
      var pair = String(value).split(';')[0];
      var at = pair.indexOf('=');
      if (at > 0) jar[pair.slice(0, at).trim()] = pair.slice(at + 1);
    },
  });
  function memory() {
    var items = {};
    return {
      getItem: function (k) { return Object.prototype.hasOwnProperty.call(items, k) ? items[k] : null; },
      setItem: function (k, v) { items[k] = String(v); },
      removeItem: function (k) { delete items[k]; },
      clear: function () { items = {}; },
      key: function (i) { return Object.keys(items)[i] || null; },
      get length() { return Object.keys(items).length; },
    };
  }
  Object.defineProperty(window, 'localStorage', { configurable: true, value: memory() });
  Object.defineProperty(window, 'sessionStorage', { configurable: true, value: memory() });
  var ran = false;
  window.addEventListener('message', function (event) {
    if (ran || event.source !== window.parent || !event.data || typeof event.data.script !== 'string') return;
    ran = true;
    var language = event.data.language;
    if (typeof language === 'string') {
      document.documentElement.lang = language;
      Object.defineProperty(Navigator.prototype, 'languages', { configurable: true, get: function () { return [language]; } });
      Object.defineProperty(Navigator.prototype, 'language', { configurable: true, get: function () { return language; } });
    }
    var script = document.createElement('script');
    var region = event.data.region;
    if (typeof region === 'string' && /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/.test(region)) script.setAttribute('data-region', region);
    script.textContent = event.data.script;
    document.body.appendChild(script);
  });
  window.parent.postMessage({ previewReady: true }, '*');
})();
</script>
</body>
</html>
`;

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
    "connect-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'",
  'cache-control': 'no-cache',
  'referrer-policy': 'no-referrer',
};

export function registerBannerPreviewPage(app: FastifyInstance): void {
  app.get('/banner-preview.html', { schema: { hide: true }, config: { auth: 'none' } }, async (_request, reply) => reply.headers(HEADERS).send(PAGE));
}
