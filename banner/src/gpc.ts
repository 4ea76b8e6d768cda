import * as CookieConsent from 'vanilla-cookieconsent';
import { bySlug } from './account.ts';

declare global {
  interface Navigator {
    globalPrivacyControl?: boolean;
  }
}

const MARKETING = 'marketing';

/** The visitor's browser sends Global Privacy Control: said in the banner and recorded with the choice. */
export const gpc = navigator.globalPrivacyControl === true;

/**
 * Under Global Privacy Control, "Accept all" leaves marketing off unless the visitor switched it on
 * in the preferences: the signal is the visitor's standing refusal of sale and targeted ads.
 */
export function honourGpc(): void {
  if (!gpc || !bySlug.has(MARKETING)) return;
  document.addEventListener('click', (event) => {
    const button = (event.target as Element | null)?.closest?.('#cc-main button[data-role="all"]');
    if (!button) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    const toggle = document.querySelector<HTMLInputElement>(`#cc-main input.section__toggle[value="${MARKETING}"]`);
    const chosen = !!toggle?.checked && !!button.closest('.pm');
    CookieConsent.acceptCategory('all', chosen ? [] : [MARKETING]);
    CookieConsent.hidePreferences();
    CookieConsent.hide();
  }, true);
}
