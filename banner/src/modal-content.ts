/**
 * What the library's two modals say, and where they sit. The library injects most of these strings
 * as markup: the service's and the account's words are given escaped.
 */

import type * as CookieConsent from 'vanilla-cookieconsent';
import { config } from './account.ts';
import type { BannerCategory } from './config.ts';
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

export function translation(t: Texts): CookieConsent.Translation {
  const policy = config.banner.privacy_policy_url;
  const policyLink = policy ? `<a href="${escapeHtml(policy)}" target="_blank" rel="noopener">${escapeHtml(t.privacy_policy)}</a>` : '';
  const gpcNote = gpc ? `<br><br>${escapeHtml(t.gpc_notice)}` : '';
  return {
    consentModal: {
      title: escapeHtml(t.title),
      description: `${escapeHtml(t.description)}${gpcNote}{{revisionMessage}}`,
      revisionMessage: `<br><br>${escapeHtml(t.revision_notice)}`,
      acceptAllBtn: escapeHtml(t.accept_all),
      acceptNecessaryBtn: config.banner.show_reject_all ? escapeHtml(t.reject_all) : undefined,
      showPreferencesBtn: escapeHtml(t.manage),
      footer: policyLink || undefined,
    },
    preferencesModal: {
      title: escapeHtml(t.preferences_title),
      acceptAllBtn: escapeHtml(t.accept_all),
      acceptNecessaryBtn: escapeHtml(t.reject_all),
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
