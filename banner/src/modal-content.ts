/**
 * What the library's two modals say, and where they sit. The library injects most of these strings
 * as markup: the service's and the account's words are given escaped.
 */

import type * as CookieConsent from 'vanilla-cookieconsent';
import { config } from './account.ts';
import type { BannerCategory, BannerMode } from './config.ts';
import { gpc } from './gpc.ts';
import { language, own } from './language.ts';
import { itemDescription } from './own-cookie.ts';
import { escapeHtml } from './text.ts';
import type { Texts } from './translations.ts';

export const tableHeaders = (t: Texts) => ({ name: t.cookie_name, domain: t.cookie_domain, duration: t.cookie_duration, description: t.cookie_description });

function cookieTable(category: BannerCategory, t: Texts) {
  if (category.storage_items.length === 0) return undefined;
  const headers = tableHeaders(t);
  return {
    headers: {
      name: escapeHtml(headers.name),
      domain: escapeHtml(headers.domain),
      duration: escapeHtml(headers.duration),
      description: escapeHtml(headers.description),
    },
    body: category.storage_items.map((item) => ({
      name: escapeHtml(item.name),
      domain: escapeHtml(item.domain),
      duration: escapeHtml(own(item, 'duration')),
      description: escapeHtml(itemDescription({ name: item.name, description: own(item, 'description') }, config.account.id, language)),
    })),
  };
}

/** A category's description, then the services that receive data under it, each linked to its privacy policy. */
function sectionDescription(category: BannerCategory, t: Texts): string | undefined {
  const names = category.services.map((service) => {
    const company = service.company_name && service.company_name !== service.name ? ` (${escapeHtml(service.company_name)})` : '';
    // The service stores only http(s) addresses; a page never gets a link of another scheme from here.
    const policy = service.privacy_policy_url && /^https?:\/\//i.test(service.privacy_policy_url) ? service.privacy_policy_url : null;
    const name = escapeHtml(own(service, 'name'));
    const linked = policy ? `<a href="${escapeHtml(policy)}" target="_blank" rel="noopener">${name}</a>` : name;
    return linked + company;
  });
  const listed = names.length > 0 ? `${escapeHtml(t.services)} ${names.join(', ')}` : '';
  const description = escapeHtml(own(category, 'description'));
  return [description, listed].filter(Boolean).join('<br><br>') || undefined;
}

/** What the small notice of the other modes says, and its buttons: its first one takes the library's "accept all" place. */
function notice(t: Texts, mode: BannerMode): { description: string; showPreferencesBtn: string } {
  if (mode === 'opt-out') return { description: gpc ? t.gpc_opt_out : t.opt_out_description, showPreferencesBtn: t.do_not_sell };
  return { description: t.notice_description, showPreferencesBtn: t.manage };
}

export function translation(t: Texts, mode: BannerMode): CookieConsent.Translation {
  const policy = config.banner.privacy_policy_url;
  const policyLink = policy ? `<a href="${escapeHtml(policy)}" target="_blank" rel="noopener">${escapeHtml(t.privacy_policy)}</a>` : '';
  const gpcNote = gpc ? `<br><br>${escapeHtml(mode === 'opt-out' ? t.gpc_opt_out : t.gpc_notice)}` : '';
  const revisionMessage = `<br><br>${escapeHtml(t.revision_notice)}`;
  const small = mode === 'opt-out' || mode === 'notice' ? notice(t, mode) : undefined;
  return {
    consentModal: small
      ? {
        // No title: a small notice, named for assistive technology by the banner's title.
        label: t.title,
        description: `${escapeHtml(small.description)}{{revisionMessage}}`,
        revisionMessage,
        acceptAllBtn: escapeHtml(t.dismiss),
        showPreferencesBtn: escapeHtml(small.showPreferencesBtn),
        footer: policyLink || undefined,
      }
      : {
        title: escapeHtml(t.title),
        description: `${escapeHtml(t.description)}${gpcNote}{{revisionMessage}}`,
        revisionMessage,
        acceptAllBtn: escapeHtml(t.accept_all),
        acceptNecessaryBtn: config.banner.show_reject_all ? escapeHtml(t.reject_all) : undefined,
        showPreferencesBtn: escapeHtml(t.manage),
        footer: policyLink || undefined,
      },
    preferencesModal: {
      title: escapeHtml(t.preferences_title),
      acceptAllBtn: escapeHtml(t.accept_all),
      // Under opt-out this button opts out (opt-out.ts): the sale and sharing categories off, the others kept.
      acceptNecessaryBtn: escapeHtml(mode === 'opt-out' ? t.do_not_sell : t.reject_all),
      savePreferencesBtn: escapeHtml(t.save),
      // An attribute the library sets as text (aria-label), not markup.
      closeIconLabel: t.close,
      sections: [
        { description: `${escapeHtml(t.preferences_description)}${gpcNote}${policyLink ? ` ${policyLink}` : ''}` },
        ...config.categories.map((category) => ({
          title: escapeHtml(own(category, 'name')),
          description: sectionDescription(category, t),
          linkedCategory: category.slug,
          cookieTable: cookieTable(category, t),
        })),
      ],
    },
  };
}

export function guiOptions(): CookieConsent.GuiOptions {
  const { layout, position } = config.banner;
  const vertical = position.split(' ')[0];
  const consentPosition = layout === 'bar' ? (vertical === 'top' ? 'top' : 'bottom') : position;
  return {
    consentModal: { layout, position: consentPosition as CookieConsent.ConsentModalPosition, equalWeightButtons: true },
    preferencesModal: { layout: 'box', equalWeightButtons: true },
  };
}
