/**
 * What the opt-out mode adds to its small notice (the library's consent modal, with the words of
 * modal-content.ts): the persistent "Do Not Sell or Share" button, the opt-out itself, and Global
 * Privacy Control taken as that opt-out without a click.
 */

import * as CookieConsent from 'vanilla-cookieconsent';
import { saleSlugs } from './account.ts';
import { gpc } from './gpc.ts';
import { texts } from './language.ts';
import { currentPreferences, previous } from './state.ts';

/** Switches off the categories of sale or sharing, and keeps the others as they are. */
function optOut(): void {
  CookieConsent.acceptCategory((currentPreferences()?.acceptedCategories ?? []).filter((slug) => !saleSlugs.includes(slug)));
}

/** Shows the small notice with `text` in place of its description. */
function say(text: string): void {
  CookieConsent.show(true);
  const description = document.querySelector('#cc-main .cm__desc');
  if (description) description.textContent = text;
}

/**
 * Before the library starts, the clicks it must not read: the preferences' second button opts out,
 * and the notice, shown again after a choice to say something, is only closed by its button.
 */
export function prepareOptOut(): void {
  document.addEventListener('click', (event) => {
    const button = (event.target as Element | null)?.closest?.('#cc-main button[data-role]');
    const role = button?.getAttribute('data-role');
    const inPreferences = !!button?.closest('.pm');
    const opting = inPreferences && role === 'necessary';
    if (!opting && !(role === 'all' && !inPreferences && CookieConsent.validConsent())) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    if (opting) optOut();
    CookieConsent.hidePreferences();
    CookieConsent.hide();
    if (opting) say(texts.opt_out_done);
  }, true);
}

/** The button that stays on every page of an opt-out region; a site hides it (`#consentry-dns`) when it links to the preferences itself. */
function addDoNotSellButton(): void {
  const button = document.createElement('button');
  button.id = 'consentry-dns';
  button.type = 'button';
  button.textContent = texts.do_not_sell;
  button.addEventListener('click', () => CookieConsent.showPreferences());
  document.body.appendChild(button);
}

/**
 * Once the library has started: the button, and a GPC signal taken as the opt-out (recorded with
 * `gpc: true`, the notice saying so) unless the choice in force was made under the signal already.
 */
export function startOptOut(): void {
  addDoNotSellButton();
  const chose = CookieConsent.validConsent();
  const stillOn = saleSlugs.some((slug) => CookieConsent.acceptedCategory(slug));
  if (!gpc || saleSlugs.length === 0 || (chose && (previous?.data?.gpc || !stillOn))) return;
  optOut();
  say(texts.gpc_opt_out);
}
