import * as CookieConsent from 'vanilla-cookieconsent';
import { saleSlugs } from './account.ts';

declare global {
  interface Navigator {
    globalPrivacyControl?: boolean;
  }
}

/** The visitor's browser sends Global Privacy Control: said in the banner and recorded with the choice. */
export const gpc = navigator.globalPrivacyControl === true;

/**
 * Under Global Privacy Control, "Accept all" leaves the categories of sale or sharing (marketing
 * unless the account says otherwise) off unless the visitor switched them on in the preferences: the
 * signal is the visitor's standing refusal of sale and targeted ads.
 */
export function honourGpc(): void {
  if (!gpc || saleSlugs.length === 0) return;
  document.addEventListener('click', (event) => {
    const button = (event.target as Element | null)?.closest?.('#cc-main button[data-role="all"]');
    if (!button) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    const inPreferences = !!button.closest('.pm');
    const switchedOn = (slug: string) =>
      inPreferences && !!document.querySelector<HTMLInputElement>(`#cc-main input.section__toggle[value="${CSS.escape(slug)}"]`)?.checked;
    CookieConsent.acceptCategory('all', saleSlugs.filter((slug) => !switchedOn(slug)));
    CookieConsent.hidePreferences();
    CookieConsent.hide();
  }, true);
}
