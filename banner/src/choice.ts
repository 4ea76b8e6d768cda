import * as CookieConsent from 'vanilla-cookieconsent';
import { bySlug, config, saleSlugs, serviceBase } from './account.ts';
import { notify } from './api.ts';
import { clearRejected } from './clearing.ts';
import { pushUpdate } from './consent-mode.ts';
import { releaseGated } from './gating.ts';
import { gpc } from './gpc.ts';
import { gppString, updateGpp } from './gpp.ts';
import { showConsentId } from './preferences-modal.ts';
import { recordConsent } from './recording.ts';
import { accepted, consentId, ownDomain, place, rejected, sessionId, setConsentId } from './state.ts';
import { eraseOtherCopies } from './stored.ts';

/** What a valid choice means for the page: Consent Mode, gated elements, storage of rejected categories. */
export function apply(): void {
  pushUpdate(CookieConsent.getUserPreferences().acceptedCategories);
  releaseGated(accepted);
  clearRejected(config.categories, rejected);
}

/** What the stored choice keeps besides the categories: see StoredData. */
function keepData(): void {
  CookieConsent.setCookieData({ value: { session_id: sessionId, consent_id: consentId, mode: place?.mode, gpc }, mode: 'overwrite' });
}

/** How many choices were made on this page: the last one's recording alone sets the consent id. */
let choices = 0;

/**
 * Records the choice, with the GPP string in force where one applies (it is at hand once the GPP
 * file has loaded, which an opt-out region starts at once); a refused or failed request costs the
 * visitor nothing but the consent id.
 */
function record(): void {
  const preferences = CookieConsent.getUserPreferences();
  const idsOf = (slugs: string[]) => slugs.map((slug) => bySlug.get(slug)?.id).filter((id): id is string => !!id);
  const consent = {
    session_id: sessionId,
    url: location.href.slice(0, 2048),
    gpc,
    // The mode applied, and where the visitor is when the banner knows it (else the service finds it).
    mode: place?.mode,
    ...(place?.country ? { country: place.country, region: place.region } : {}),
    // What the visitor was shown: the notice snapshot this configuration was served as.
    ...(config.notice_hash ? { notice_hash: config.notice_hash } : {}),
    user_preferences: {
      accept_type: preferences.acceptType,
      accepted_categories: idsOf(preferences.acceptedCategories),
      rejected_categories: idsOf(preferences.rejectedCategories),
    },
  };
  const made = ++choices;
  const endpoint = `${serviceBase}/widget/${config.account.id}/consents`;
  void gppString().then((gpp) => recordConsent(endpoint, { consent: gpp ? { ...consent, gpp_string: gpp } : consent })).then((id) => {
    // Only the latest choice's id is its receipt: an earlier request may answer after it.
    if (!id || made !== choices) return;
    setConsentId(id);
    keepData();
    showConsentId();
  });
}

/** A choice made (the first, or a change): kept in the cookie, recorded, and told to the page. */
export function onChoice(): void {
  // The previous choice's receipt is not this one's: no id until this choice is recorded.
  setConsentId(null);
  showConsentId();
  eraseOtherCopies(ownDomain);
  keepData();
  // In an opt-out region the GPP sections say whether the visitor opted out: before the recording reads them.
  if (place?.mode === 'opt-out') void updateGpp({ optedOut: !saleSlugs.every(accepted) });
  record();
  notify();
}
