/**
 * The banner's start: the `__gpp` stub, the visitor's mode when the page or the session knows it,
 * Consent Mode's defaults and the stored choice at once, `window.Consentry`, then (the mode known,
 * asked of the service if need be) GPP for that mode and the library with the account's categories
 * and words for it once the page is parsed, and the page-view count.
 */

import * as CookieConsent from 'vanilla-cookieconsent';
import { config, saleSlugs, serviceBase } from './account.ts';
import { installApi, notify } from './api.ts';
import { apply, onChoice } from './choice.ts';
import type { BannerMode } from './config.ts';
import { pushDefaults, pushUpdate } from './consent-mode.ts';
import { startExtras } from './extras.ts';
import { releaseGated, watchGated } from './gating.ts';
import { gpc, honourGpc } from './gpc.ts';
import { installGpp, startGpp } from './gpp.ts';
import { language, texts } from './language.ts';
import { guiOptions, translation } from './modal-content.ts';
import { prepareOptOut, startOptOut } from './notices.ts';
import { plainLabels, showConsentId } from './preferences-modal.ts';
import { countPageViews } from './recording.ts';
import { askPlace, knownPlace } from './region.ts';
import {
  accepted, askedHere, currentPreferences, markStarted, optInChoice, ownDomain, place, returning, secureCookie, sessionId, setConsentId, setPlace, settleCookie,
  startingCategories, startingDefaults, storedChoiceVoid,
} from './state.ts';
import { COOKIE, eraseChoice } from './stored.ts';
import { injectStyle } from './style.ts';
/* tcf */
import { installTcf, markLibraryStarted, startTcf, tcfAsks } from './tcf.ts';
/* /tcf */

function start(mode: BannerMode): void {
  injectStyle();
  if (mode === 'opt-out') prepareOptOut();
  honourGpc();
  const starting = startingCategories(mode);
  const categories: Record<string, CookieConsent.Category> = {};
  for (const category of config.categories) {
    // The switches start as the mode has the categories before a choice.
    categories[category.slug] = { enabled: starting.includes(category.slug), readOnly: category.required };
  }
  markStarted();
  void CookieConsent.run({
    revision: config.revision,
    // Where the TCF screens ask, they take the place of the banner's.
    autoShow: mode !== 'none' /* tcf */ && !tcfAsks(mode) /* /tcf */,
    hideFromBots: false,
    manageScriptTags: false,
    autoClearCookies: false,
    disablePageInteraction: false,
    cookie: {
      name: COOKIE,
      ...(ownDomain ? { domain: ownDomain } : {}),
      expiresAfterDays: config.banner.consent_expiry_days,
      sameSite: 'Lax',
      secure: secureCookie,
    },
    guiOptions: guiOptions(),
    categories,
    language: { default: language, translations: { [language]: translation(texts, mode) } },
    onFirstConsent: onChoice,
    onConsent: apply,
    onChange: () => {
      apply();
      onChoice();
    },
    onModalReady: ({ modalName, modal }) => {
      // The notices of the other modes block nothing: no modal dialog for assistive technology either.
      if (modalName === 'consentModal' && mode !== 'opt-in') modal.setAttribute('aria-modal', 'false');
      if (modalName !== 'preferencesModal') return;
      plainLabels(modal);
      showConsentId(modal);
    },
  }).then(() => {
    /* tcf */
    markLibraryStarted();
    /* /tcf */
    releaseGated(accepted);
    watchGated(accepted);
    startExtras();
    if (mode === 'opt-out') startOptOut();
  });
}

const inForce = () => currentPreferences()?.acceptedCategories ?? [];

/**
 * The mode is known: a choice made under another mode is dropped where opt-in applies, Consent Mode
 * hears the state in force, the page hears of categories the mode turns on, and the library starts
 * once the page is parsed.
 */
function decided(): void {
  const mode = place!.mode;
  if (storedChoiceVoid()) {
    eraseChoice();
    setConsentId(null);
  }
  pushUpdate(inForce());
  // GPP for this mode: its US sections (and the GPP file) in opt-out regions only.
  const optedOut = !!currentPreferences() && !saleSlugs.every((slug) => inForce().includes(slug));
  void startGpp({ mode, country: place!.country, region: place!.region, gpc, optedOut });
  /* tcf */
  // The TCF where it applies (its screens and the TCF file), `gdprApplies` false elsewhere.
  startTcf({ mode, language, texts, returning: returning(), cookieDomain: ownDomain, secure: secureCookie, recordAgain: onChoice });
  /* /tcf */
  if (!returning() && mode !== 'opt-in') notify();
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => start(mode), { once: true });
  else start(mode);
}

function boot(): void {
  /* tcf */
  // The `__tcfapi` stub before anything else, for an account with TCF on.
  installTcf();
  /* /tcf */
  // The `__gpp` stub first: before any tag on the page can call it.
  installGpp(serviceBase);
  // A returning visitor's opt-in choice holds wherever they are: their place is asked of no one.
  const known = knownPlace() ?? (optInChoice ? { country: null, region: null, mode: 'opt-in' as const } : undefined);
  // The request first, so that the answer is on its way while the rest runs.
  const asked = known ? undefined : askPlace();
  if (known) setPlace(known);
  // Consent Mode before any tag on the page can read it.
  pushDefaults(startingDefaults, inForce());
  settleCookie();
  installApi();
  if (!asked) decided();
  else void asked.then((found) => {
    setPlace(found);
    decided();
  });

  countPageViews(`${serviceBase}/widget/${config.account.id}/views`, () => (askedHere() ? sessionId : undefined));
}

// A second copy of the script (the tag pasted twice, or a tag manager adding it again) would replace
// window.Consentry with an API over a library that never starts (it runs once per page) and push
// Consent Mode's default again, after the first copy's update: only the first copy runs.
if (window.Consentry) console.warn('Consentry: the banner script is on this page more than once; only its first copy runs.');
else boot();
