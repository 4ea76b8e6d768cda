/**
 * The IAB TCF in the banner of an account with TCF on (`config.tcf`; the banner of other accounts is
 * built without this module: see banner/build.ts). The `__tcfapi` stub is in place from the script's
 * start (`installTcf`); once the visitor's mode is known, `startTcf` either loads the TCF file
 * (opt-in regions: `@iabtechlabtcf/cmpapi`, `core` and the TCF screens, served apart, content-hashed),
 * whose screens then take the place of the banner's own and decide the account's categories, or
 * answers `gdprApplies` false (every other mode), loading nothing more.
 */

import * as CookieConsent from 'vanilla-cookieconsent';
import { config, serviceBase } from './account.ts';
import type { BannerMode } from './config.ts';
import type { GppStub } from './gpp-stub.ts';
import type { TcfSession } from './tcf-chunk.ts';
import { setTcfSignal } from './tcf-signal.ts';
import { answerNotApplies, installTcfStub } from './tcf-stub.ts';
import type { Texts } from './translations.ts';

/** The TCF file's name (`tcf.<hash>.js`), and the global its IIFE leaves its exports in: see banner/build.ts. */
declare const __CONSENTRY_TCF_CHUNK__: string;
declare const __CONSENTRY_TCF_GLOBAL__: string;

type TcfFile = typeof import('./tcf-chunk.ts');

let installed = false;
let session: TcfSession | undefined;
let libraryStarted: () => void = () => undefined;
const library = new Promise<void>((resolve) => {
  libraryStarted = resolve;
});

/** Puts the `__tcfapi` stub in place, first thing, unless the page already has a CMP of its own. */
export function installTcf(): void {
  installed = !!config.tcf && installTcfStub();
}

/** The TCF screens ask this visitor, in place of the banner's: TCF on, and opt-in where they are. */
export const tcfAsks = (mode: BannerMode) => installed && mode === 'opt-in';

let gppStub: GppStub | undefined;

/** Where the TCF screens ask, the `__gpp` stub goes to the TCF file, for the tcfeuv2 section: true then. */
export function tcfTakesGpp(mode: BannerMode, stub: GppStub): boolean {
  if (!tcfAsks(mode)) return false;
  gppStub = stub;
  return true;
}

/** The banner's library has started: choices made on the TCF screens can be given to it. */
export function markLibraryStarted(): void {
  libraryStarted();
}

/** `Consentry.showPreferences()` opens the TCF second layer where the TCF screens ask; false elsewhere. */
export function showTcfPreferences(): boolean {
  session?.showPreferences();
  return !!session;
}

function loadFile(): Promise<TcfFile> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `${serviceBase}/widget/${__CONSENTRY_TCF_CHUNK__}`;
    script.onload = () => resolve((window as unknown as Record<string, TcfFile>)[__CONSENTRY_TCF_GLOBAL__]);
    script.onerror = reject;
    document.head.appendChild(script);
  });
}

/**
 * The list's version and a hash of the account's vendors, for the vendor file's address: a browser's
 * cached copy is never of another list, nor of the vendors before the owner changed them.
 */
function listKey(tcf: { gvl_version: number; vendor_ids: number[] }): string {
  let hash = 0x811c9dc5;
  for (const char of tcf.vendor_ids.join(',')) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return `${tcf.gvl_version}-${(hash >>> 0).toString(36)}`;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((slug) => b.includes(slug));

export interface TcfStart {
  mode: BannerMode;
  language: string;
  texts: Texts;
  /** The account's own choice is in force (state.ts `returning`). */
  returning: boolean;
  cookieDomain: string | undefined;
  secure: boolean;
  /** A choice made on the TCF screens that leaves the categories as they were: the banner records it all the same. */
  recordAgain: () => void;
}

/**
 * Starts the TCF for the visitor's mode, once: where it does not apply, `__tcfapi` says so; where it
 * does, the TCF file runs the screens, and each choice on them becomes the account's categories
 * (tcf-categories.ts), recorded with the TC and AC strings.
 */
export function startTcf(start: TcfStart): void {
  const tcf = config.tcf;
  if (!installed || !tcf || session) return;
  if (!tcfAsks(start.mode)) {
    answerNotApplies(tcf.cmp_id, tcf.cmp_version);
    return;
  }
  const stub: TcfSession = { showPreferences: () => undefined };
  session = stub;
  loadFile().then((file) => {
    session = file.runTcf({
      tcf,
      vendorsUrl: `${serviceBase}/widget/${config.account.id}/tcf-vendors.json?lang=${encodeURIComponent(start.language)}&v=${listKey(tcf)}`,
      language: start.language,
      texts: start.texts,
      look: config.banner,
      categories: config.categories,
      returning: start.returning,
      cookie: { domain: start.cookieDomain, secure: start.secure, days: config.banner.consent_expiry_days },
      restore: setTcfSignal,
      gpp: gppStub,
      choose(slugs, signal) {
        setTcfSignal(signal);
        void library.then(() => {
          const before = CookieConsent.validConsent() ? CookieConsent.getUserPreferences().acceptedCategories : undefined;
          CookieConsent.acceptCategory(slugs);
          if (before && sameSet(before, CookieConsent.getUserPreferences().acceptedCategories)) start.recordAgain();
        });
      },
    });
  }).catch(() => {
    // The file did not load: nothing optional runs (opt-in), `__tcfapi` stays the stub's, `__gpp` has no section.
    gppStub?.settle();
    console.warn(`Consentry: the TCF file could not be loaded (${serviceBase}/widget/${__CONSENTRY_TCF_CHUNK__})`);
  });
}
