/**
 * The banner's extras, the cookie declaration and the placeholders of embedded content, are a
 * file of their own (extras-chunk.ts, content-hashed, served as `/widget/extras.<hash>.js`): loaded
 * only on a page that has `<div id="consentry-declaration">` or an `<iframe data-service>`, now or
 * later, so that the script of every other page carries none of them.
 */
import * as CookieConsent from 'vanilla-cookieconsent';
import { bySlug, config, serviceBase } from './account.ts';
import type { ExtrasHost } from './extras-host.ts';
import { language, own } from './language.ts';
import { consentId, currentPreferences, sessionId } from './state.ts';

/** The extras file's name (`extras.<hash>.js`) and the global its IIFE leaves its exports in: see banner/build.ts. */
declare const __CONSENTRY_EXTRAS_CHUNK__: string;
declare const __CONSENTRY_EXTRAS_GLOBAL__: string;

type ExtrasFile = typeof import('./extras-chunk.ts');

const WANTED = '#consentry-declaration, iframe[data-src][data-service]';
let file: ExtrasFile | undefined;

const host: ExtrasHost = {
  // The functions named, not the namespace: the bundle keeps only what the banner uses of the library.
  cc: {
    acceptCategory: CookieConsent.acceptCategory,
    hide: CookieConsent.hide,
    showPreferences: CookieConsent.showPreferences,
    validConsent: CookieConsent.validConsent,
    getCookie: CookieConsent.getCookie,
  },
  config,
  language,
  serviceBase,
  bySlug,
  name: (thing) => own(thing, 'name'),
  preferences: currentPreferences,
  receipt: () => ({ consentId, sessionId }),
};

function load(): void {
  const script = document.createElement('script');
  script.src = `${serviceBase}/widget/${__CONSENTRY_EXTRAS_CHUNK__}`;
  script.onload = () => {
    file = (window as unknown as Record<string, ExtrasFile>)[__CONSENTRY_EXTRAS_GLOBAL__];
    file.start(host);
  };
  script.onerror = () => console.warn(`Consentry: the declaration and the placeholders could not be loaded (${script.src})`);
  document.head.appendChild(script);
}

/** Loads the extras file once the page has something for it (checked again as the page changes). */
export function startExtras(): void {
  if (document.querySelector(WANTED)) return load();
  const observer = new MutationObserver(() => {
    if (!document.querySelector(WANTED)) return;
    observer.disconnect();
    load();
  });
  observer.observe(document.documentElement, { childList: true, subtree: true });
}

/** The choice in force was recorded: the declaration shows its consent id. */
export function extrasRecorded(): void {
  if (file) file.showChoice();
}
