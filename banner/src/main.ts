/**
 * The banner's start: the `__gpp` stub, Consent Mode's default and the stored choice at once,
 * `window.Consentry`, the library with the account's categories and words once the page is parsed,
 * and the page-view count.
 */

import * as CookieConsent from 'vanilla-cookieconsent';
import { config, serviceBase } from './account.ts';
import { installApi } from './api.ts';
import { apply, onChoice } from './choice.ts';
import { pushDefault, pushUpdate } from './consent-mode.ts';
import { releaseGated, watchGated } from './gating.ts';
import { gpc, honourGpc } from './gpc.ts';
import { installGpp, startGpp } from './gpp.ts';
import { language, texts } from './language.ts';
import { guiOptions, translation } from './modal-content.ts';
import { plainLabels, showConsentId } from './preferences-modal.ts';
import { countPageViews } from './recording.ts';
import { accepted, markStarted, ownDomain, previous, returning, secureCookie, settleCookie } from './state.ts';
import { COOKIE } from './stored.ts';
import { injectStyle } from './style.ts';

function start(): void {
  injectStyle();
  honourGpc();
  const categories: Record<string, CookieConsent.Category> = {};
  for (const category of config.categories) {
    categories[category.slug] = { enabled: category.required, readOnly: category.required };
  }
  markStarted();
  void CookieConsent.run({
    revision: config.revision,
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
    language: { default: language, translations: { [language]: translation(texts) } },
    onFirstConsent: onChoice,
    onConsent: apply,
    onChange: () => {
      apply();
      onChoice();
    },
    onModalReady: ({ modalName, modal }) => {
      if (modalName !== 'preferencesModal') return;
      plainLabels(modal);
      showConsentId(modal);
    },
  }).then(() => {
    if (CookieConsent.validConsent()) releaseGated(accepted);
    watchGated(accepted);
  });
}

function boot(): void {
  // The `__gpp` stub and Consent Mode first: before any tag on the page can call or read them.
  installGpp(serviceBase);
  pushDefault();
  if (returning) pushUpdate(previous!.categories!);
  settleCookie();
  installApi();
  // Every visitor is under opt-in for now: no US section applies, and the GPP file is not loaded.
  void startGpp({ mode: 'opt-in', country: null, region: null, gpc, optedOut: false });

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();

  countPageViews(`${serviceBase}/widget/${config.account.id}/views`);
}

// A second copy of the script (the tag pasted twice, or a tag manager adding it again) would replace
// window.Consentry with an API over a library that never starts (it runs once per page) and push
// Consent Mode's default again, after the first copy's update: only the first copy runs.
if (window.Consentry) console.warn('Consentry: the banner script is on this page more than once; only its first copy runs.');
else boot();
