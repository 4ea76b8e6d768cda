/**
 * The IAB Global Privacy Platform (`__gpp`) for the banner's modes. The stub is in place from the
 * script's start (`installGpp`); once the visitor's mode is known, `startGpp` either settles it
 * (no US section applies: opt-in, notice and none regions, and visitors outside the US) or, in an
 * opt-out region, loads the GPP file (`@iabgpp/cmpapi`, served apart, content-hashed) and writes the
 * `usnat` section and the state's own. Visitors and accounts outside opt-out regions load nothing
 * more than the stub. The string is kept in the `__gpp` cookies (gpp-storage.ts) and sent with the
 * consent (`gppString`, in choice.ts).
 */

import type { UsSignal } from './gpp-chunk.ts';
import { forgetGppString, keepGppString } from './gpp-storage.ts';
import { installGppStub, type GppStub } from './gpp-stub.ts';
/* tcf */
import { tcfTakesGpp } from './tcf.ts';
/* /tcf */

/** The GPP file's name (`gpp.<hash>.js`), and the global its IIFE leaves its exports in: see banner/build.ts. */
declare const __CONSENTRY_GPP_CHUNK__: string;
declare const __CONSENTRY_GPP_GLOBAL__: string;

type GppFile = typeof import('./gpp-chunk.ts');

/** What the banner knows of the visitor when it starts GPP. */
export interface GppStart {
  /** The mode applied: only `opt-out` has a US section. */
  mode: 'opt-in' | 'opt-out' | 'notice' | 'none';
  /** ISO 3166-1 alpha-2, or null when not known (read from `region` then). */
  country: string | null;
  /** ISO 3166-2 (`US-CA`), or null when not known: `usnat` alone then. */
  region: string | null;
  /** The browser sends Global Privacy Control: the visitor opted out without a click. */
  gpc: boolean;
  /** The visitor opted out on an earlier page (their stored choice). */
  optedOut: boolean;
}

let stub: GppStub | undefined;
let fileUrl = '';
let signal: Promise<UsSignal | undefined> | undefined;
let started = false;
let current: Promise<string | null> = Promise.resolve(null);

/**
 * Puts the `__gpp` stub in place, first thing, so that the page's ad scripts find it; the GPP file
 * comes from `serviceBase` when needed. A page that already has a `__gpp` (another CMP's) keeps it,
 * and the banner then neither loads the GPP file nor writes a string.
 */
export function installGpp(serviceBase: string): void {
  stub = installGppStub();
  fileUrl = `${serviceBase}/widget/${__CONSENTRY_GPP_CHUNK__}`;
}

/** A US section applies: an opt-out region, in the US or where the country is not known. */
function usApplies({ mode, country, region }: GppStart): boolean {
  const place = country ?? region?.slice(0, 2) ?? null;
  return mode === 'opt-out' && (place === null || place.toUpperCase() === 'US');
}

function loadFile(): Promise<GppFile> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = fileUrl;
    script.onload = () => resolve((window as unknown as Record<string, GppFile>)[__CONSENTRY_GPP_GLOBAL__]);
    script.onerror = reject;
    document.head.appendChild(script);
  });
}

/** The string `read` gives, kept in the cookies; null without a US signal. */
function kept(us: UsSignal | undefined, read: (us: UsSignal) => string): string | null {
  if (!us) return null;
  const gppString = read(us);
  keepGppString(gppString, us.applicable);
  return gppString;
}

/** A callback of the page's that throws is the page's error, thrown on its own. */
function rethrow(error: unknown): void {
  setTimeout(() => { throw error; });
}

/**
 * Starts GPP for the visitor's mode, once per page: a promise of the GPP string (null where no
 * section applies; null too when the GPP file could not be loaded, and `__gpp` then stays "not ready").
 */
export function startGpp(start: GppStart): Promise<string | null> {
  const own = stub;
  if (!own || started) return current;
  started = true;
  if (!usApplies(start)) {
    /* tcf */
    // Where the TCF screens ask, the TCF file writes GPP's tcfeuv2 section.
    if (tcfTakesGpp(start.mode, own)) return current;
    /* /tcf */
    own.settle();
    forgetGppString();
    return current;
  }
  signal = loadFile().then((file) => {
    // The library answers `__gpp` from here; what was asked before, once the sections are written.
    const queued = own.take();
    const us = file.startUsSignal(start.region?.toUpperCase() ?? null, { optedOut: start.optedOut, gpc: start.gpc });
    for (const call of queued) {
      try {
        window.__gpp!(...call);
      } catch (error) {
        rethrow(error);
      }
    }
    return us;
  }).catch(() => {
    // The file did not load (or the library failed): the choice is recorded without a string.
    console.warn(`Consentry: no GPP signal (${fileUrl})`);
    return undefined;
  });
  current = signal.then((us) => kept(us, (us) => us.gppString));
  return current;
}

/**
 * The visitor opted out (or took it back) in an opt-out region: the sections change, with their
 * events. Call it before the choice is saved, so that the consent records the new string.
 */
export function updateGpp({ optedOut }: { optedOut: boolean }): Promise<string | null> {
  if (!signal) return current;
  current = signal.then((us) => kept(us, (us) => us.update(optedOut))).catch((error: unknown) => {
    // A listener of the page's threw while the library told of the change.
    rethrow(error);
    return null;
  });
  return current;
}

/** The GPP string in force (null where none), once it is written: what the consent records. */
export function gppString(): Promise<string | null> {
  return current;
}
