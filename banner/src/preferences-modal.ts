/** What the banner changes in the preferences modal once the library has built it. */

import { config, serviceBase } from './account.ts';
import { own, texts } from './language.ts';
import { tableHeaders } from './modal-content.ts';
import { consentId, sessionId } from './state.ts';
import { escapeHtml } from './text.ts';

/**
 * The library injects a section's title and a table's headers as markup, so they are given escaped;
 * it also uses them as text — a category's title as the name of its switch, a header as each cell's
 * label (`data-column`) — where the escaping would show: there they get the plain words.
 */
export function plainLabels(modal: HTMLElement): void {
  for (const category of config.categories) {
    const toggle = modal.querySelector(`input.section__toggle[value="${CSS.escape(category.slug)}"]`);
    const label = toggle?.closest('label')?.querySelector('.toggle__label');
    if (label) label.textContent = own(category, 'name');
  }
  const headers = new Map(Object.values(tableHeaders(texts)).map((header) => [escapeHtml(header), header]));
  for (const cell of Array.from(modal.querySelectorAll('[data-column]'))) {
    const header = headers.get(cell.getAttribute('data-column') ?? '');
    if (header !== undefined) cell.setAttribute('data-column', header);
  }
}

/** "Your consent ID: …" at the end of the preferences, linking to the visitor's receipt. */
export function showConsentId(modal: Element | null = document.querySelector('#cc-main .pm')): void {
  if (!modal) return;
  let line = modal.querySelector<HTMLParagraphElement>('#consentry-consent-id');
  if (!consentId) return line?.remove();
  const body = modal.querySelector('.pm__body') ?? modal;
  if (!line) {
    line = document.createElement('p');
    line.id = 'consentry-consent-id';
    line.className = 'pm__section-desc';
    line.style.padding = '0 0 1em';
    body.appendChild(line);
  }
  const receipt = `${serviceBase}/widget/${encodeURIComponent(config.account.id)}/consents/${encodeURIComponent(consentId)}` +
    `?session_id=${encodeURIComponent(sessionId)}`;
  const link = document.createElement('a');
  link.href = receipt;
  link.rel = 'noopener';
  link.target = '_blank';
  link.textContent = consentId;
  line.replaceChildren(document.createTextNode(`${texts.consent_id} `), link);
}
