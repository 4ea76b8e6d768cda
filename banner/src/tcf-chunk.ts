/**
 * The TCF file: the IAB's `@iabtechlabtcf/cmpapi` and `core` and the TCF screens, built apart from the
 * banner (banner/build.ts) and loaded only by the banner of an account with TCF on, for a visitor
 * where opt-in applies (banner/src/tcf.ts). `CmpApi` takes `__tcfapi` over from the stub with the
 * calls it queued; the account's vendor list, in the visitor's language, comes from
 * `GET /widget/{id}/tcf-vendors.json`; a stored TC string that still holds is answered at once,
 * else the first layer is shown (`displayStatus` visible) until the visitor chooses.
 */

import { CmpApi } from '@iabtechlabtcf/cmpapi';
import { GVL } from '@iabtechlabtcf/core';
import { parseAcString } from './ac-string.ts';
import type { GppStub } from './gpp-stub.ts';
import type { BannerLook, BannerTcf } from './config.ts';
import { categoriesFor } from './tcf-categories.ts';
import {
  AC_COOKIE, TC_COOKIE, acString, allOrNothing, choiceOf, encodeChoice, liPurposes, liVendors, readCookie, storedModel, writeCookie,
  type TcfChoice,
} from './tcf-consent.ts';
import type { TcfSignal } from './tcf-signal.ts';
import { startTcfGpp } from './tcf-gpp.ts';
import { tcfTexts } from './tcf-texts.ts';
import { buildScreens } from './tcf-ui.ts';
import type { Texts } from './translations.ts';

export interface TcfRun {
  tcf: BannerTcf;
  /** `…/widget/{id}/tcf-vendors.json?lang=xx`. */
  vendorsUrl: string;
  language: string;
  texts: Texts;
  look: Pick<BannerLook, 'theme' | 'privacy_policy_url'>;
  categories: { slug: string; required: boolean }[];
  /** The account's own choice (its categories) is in force: with a TC string that holds, nothing is asked. */
  returning: boolean;
  /** Where the strings are kept: the account's domain (as the choice) or the page's host, for as long as the choice. */
  cookie: { domain?: string; secure: boolean; days: number };
  /** The visitor chose: the categories the choice turns on, and the strings the consent records. */
  choose(slugs: string[], signal: TcfSignal): void;
  /** A stored TCF choice holds: its strings, for the consent a later choice records. */
  restore(signal: TcfSignal): void;
  /** The banner's `__gpp` stub, when GPP is on the page: GPP's tcfeuv2 section is written here. */
  gpp?: Pick<GppStub, 'take'>;
}

export interface TcfSession {
  /** Opens the second layer (`Consentry.showPreferences()`), once the vendor list is in. */
  showPreferences(): void;
}

const copy = (choice: TcfChoice): TcfChoice => ({
  purposes: new Set(choice.purposes),
  purposeLi: new Set(choice.purposeLi),
  specialFeatures: new Set(choice.specialFeatures),
  vendors: new Set(choice.vendors),
  vendorLi: new Set(choice.vendorLi),
  atp: choice.atp,
});

const domReady = () =>
  document.readyState === 'loading' ? new Promise<void>((resolve) => document.addEventListener('DOMContentLoaded', () => resolve(), { once: true })) : Promise.resolve();

export function runTcf(run: TcfRun): TcfSession {
  let ac: string | null = null;
  const gpp = run.gpp ? startTcfGpp(run.gpp.take(), run.tcf.cmp_id, run.tcf.cmp_version) : undefined;
  let gvlVersion: number | undefined;
  type Next = (data: unknown, status: boolean) => void;
  const api = new CmpApi(run.tcf.cmp_id, run.tcf.cmp_version, true, {
    // Google reads its Additional Consent from `addtlConsent` in the TCData (getTCData and the events).
    getTCData: (next: Next, tcData: unknown, status: boolean) => {
      if (tcData && typeof tcData === 'object' && ac) (tcData as Record<string, unknown>).addtlConsent = ac;
      next(tcData, status);
    },
    // The version of the vendor list the screens show, before a TC string carries it.
    ping: (next: Next, ping: unknown, status: boolean) => {
      if (ping && typeof ping === 'object' && gvlVersion !== undefined) (ping as Record<string, unknown>).gvlVersion ??= gvlVersion;
      next(ping, status);
    },
  });

  const screens = fetch(run.vendorsUrl, { credentials: 'omit' })
    .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
    .then(async (answer) => {
      const gvl = new GVL(answer?.vendors ? answer : answer?.data);
      gvlVersion = gvl.vendorListVersion;
      const allPurposes = Object.keys(gvl.purposes).map(Number);
      const storedString = readCookie(TC_COOKIE);
      const stored = storedModel(storedString, gvl, run.tcf);
      const storedAc = readCookie(AC_COOKIE) ?? null;
      // A new visitor's switches: every consent off, every legitimate interest on (until objected to).
      let current: TcfChoice = stored
        ? choiceOf(stored, gvl, run.tcf, (parseAcString(storedAc ?? '')?.consented.length ?? 0) > 0)
        : { ...allOrNothing(gvl, run.tcf, false), purposeLi: new Set(liPurposes(gvl, run.tcf)), vendorLi: new Set(liVendors(gvl)) };
      let chosen = !!stored && run.returning;

      const decide = (choice: TcfChoice, screen: 1 | 2) => {
        const tcString = encodeChoice(gvl, run.tcf, run.language, choice, screen);
        ac = acString(run.tcf.google_atp_ids, choice.atp);
        writeCookie(TC_COOKIE, tcString, run.cookie);
        if (ac) writeCookie(AC_COOKIE, ac, run.cookie);
        current = copy(choice);
        chosen = true;
        layers.hide();
        api.update(tcString, false);
        gpp?.write(tcString, false);
        run.choose(categoriesFor(choice.purposes, allPurposes, run.categories), { tc_string: tcString, ac_string: ac });
      };
      const layers = buildScreens({
        gvl,
        tcf: run.tcf,
        language: run.language,
        texts: run.texts,
        tcfTexts: tcfTexts(run.language),
        look: run.look,
        current: () => copy(current),
        chosen: () => chosen,
        decide,
        all: (accept, screen) => decide(allOrNothing(gvl, run.tcf, accept), screen),
      });

      if (chosen) {
        ac = storedAc;
        api.update(storedString!, false);
        gpp?.write(storedString!, false);
        run.restore({ tc_string: storedString!, ac_string: storedAc });
      } else {
        await domReady();
        layers.showFirst();
        api.update('', true);
        gpp?.write(null, true);
      }
      return layers;
    })
    .catch((error: unknown) => {
      // Without the vendor list there is nothing to ask: `__tcfapi` says so (cmpStatus "error"), and
      // the optional categories stay off, as under opt-in before a choice.
      console.warn('Consentry: the TCF vendor list could not be loaded;', error);
      api.disable();
      gpp?.write(null, false);
      return undefined;
    });

  return {
    showPreferences() {
      void screens.then((layers) => layers?.showSecond());
    },
  };
}
