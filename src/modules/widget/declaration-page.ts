import { createHash } from 'node:crypto';
import { escapeHtml } from '../../../banner/src/text.ts';
import type { Declaration } from './declaration.ts';

/** The page's only style: allowed by its hash, so that the page runs nothing and loads nothing else. */
const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a;background:#fff}' +
  'table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}caption{text-align:left;font-weight:600;padding:.25rem 0}' +
  'th,td{border:1px solid #bbb;padding:.4rem .5rem;text-align:left;vertical-align:top}thead th{background:#f0f0f0}' +
  'nav ul{list-style:none;padding:0;display:flex;gap:1rem;flex-wrap:wrap}';
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** Nothing but that style: no script, no image, no frame, no form. */
export const DECLARATION_PAGE_CSP =
  `default-src 'none'; style-src ${STYLE_HASH}; base-uri 'none'; form-action 'none'`;

/**
 * The declaration as a page of its own (`GET /widget/{id}/declaration`), for sites that link to it:
 * the same content as the script shows, without the visitor's choice (the page is not on the site,
 * which keeps it), and links to the other languages.
 */
export function declarationPage(declaration: Declaration, accountName: string): string {
  const e = escapeHtml;
  const t = declaration.texts;
  const others = declaration.languages.filter((code) => code !== declaration.language);
  const nav = others.length === 0 ? '' :
    `<nav aria-label="${e(t.languages)}"><ul>${others.map((code) =>
      `<li><a href="?lang=${encodeURIComponent(code)}" hreflang="${e(code)}" lang="${e(code)}">${e(code)}</a></li>`).join('')}</ul></nav>`;
  return `<!doctype html>
<html lang="${e(declaration.language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${e(t.title)}: ${e(accountName)}</title><style>${STYLE}</style></head>
<body><main><h1>${e(t.title)}: ${e(accountName)}</h1>${nav}
<div id="consentry-declaration" class="consentry-declaration">${declaration.html}<p>${e(t.standalone_note)}</p></div></main></body></html>
`;
}
