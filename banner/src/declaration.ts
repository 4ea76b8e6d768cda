/**
 * The cookie declaration on a site's page: `<div id="consentry-declaration"></div>` is filled with
 * the account's storage items by category (fetched from `GET /widget/{id}/declaration.json` in the
 * visitor's language), and above them the visitor's choice, its consent ID and date, and buttons
 * to change or withdraw it. Part of the extras file (extras.ts).
 */
import { button, paragraph } from './dom.ts';
import type { ExtrasHost } from './extras-host.ts';

let host: ExtrasHost | undefined;
let words: Record<string, string> | undefined;
let status: HTMLElement;
let withdraw: HTMLButtonElement;

const widget = (h: ExtrasHost) => `${h.serviceBase}/widget/${encodeURIComponent(h.config.account.id)}`;

/** The visitor's choice as it stands: on every choice, and once the service has recorded it. */
export function showChoice(): void {
  const [h, t] = [host, words];
  if (!h || !t) return;
  const names = (slugs: string[]) => slugs.map((slug) => h.bySlug.get(slug)).map((category) => category && h.name(category)).filter(Boolean).join(', ') || '—';
  const now = h.preferences();
  const lines: HTMLParagraphElement[] = [];
  if (now) lines.push(paragraph(`${t.allowed} ${names(now.acceptedCategories)}`), paragraph(`${t.not_allowed} ${names(now.rejectedCategories)}`));
  if (!h.cc.validConsent()) lines.unshift(paragraph(t.no_choice));
  else {
    const { consentId, sessionId } = h.receipt();
    let id: string | Node = t.not_recorded;
    if (consentId) {
      const link = document.createElement('a');
      link.href = `${widget(h)}/consents/${encodeURIComponent(consentId)}?session_id=${encodeURIComponent(sessionId)}`;
      link.target = '_blank';
      link.rel = 'noopener';
      link.textContent = consentId;
      id = link;
    }
    const when = new Date(h.cc.getCookie('lastConsentTimestamp') as string);
    const date = document.createElement('time');
    date.dateTime = when.toISOString();
    date.textContent = when.toLocaleString(h.language, { dateStyle: 'long', timeStyle: 'short' });
    lines.push(paragraph(`${t.consent_id} `, id), paragraph(`${t.date} `, date));
  }
  status.replaceChildren(...lines);
  // Withdrawing means something only while an optional category is on (hidden by style: a page's own
  // `button { display: … }` would show a button hidden by the attribute).
  withdraw.style.display = !now || now.acceptedCategories.every((slug) => h.bySlug.get(slug)?.required) ? 'none' : '';
}

/** Fills the declaration's element, when the page has one. */
export function fillDeclaration(h: ExtrasHost): void {
  const root = document.getElementById('consentry-declaration');
  if (!root) return;
  fetch(`${widget(h)}/declaration.json?lang=${encodeURIComponent(h.language)}`, { credentials: 'omit' })
    .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`${response.status}`))))
    .then(({ data }: { data: { language: string; texts: Record<string, string>; html: string } }) => {
      const t = (words = data.texts);
      host = h;
      root.lang = data.language;
      // The service's markup, every word in it escaped there.
      root.innerHTML = data.html;
      const section = document.createElement('section');
      section.setAttribute('aria-labelledby', 'consentry-declaration-choice');
      const heading = document.createElement('h2');
      heading.id = 'consentry-declaration-choice';
      heading.textContent = t.choice_title;
      status = document.createElement('div');
      status.setAttribute('aria-live', 'polite');
      const change = button(t.change, () => h.cc.showPreferences());
      withdraw = button(t.withdraw, () => {
        // Every optional category off, as "Reject all" does: the library records it as a choice.
        h.cc.acceptCategory([]);
        h.cc.hide();
        change.focus();
      });
      section.append(heading, status, paragraph(change, ' ', withdraw));
      root.prepend(section);
      showChoice();
      window.addEventListener('consentry:change', showChoice);
    })
    .catch((error: unknown) => console.warn('Consentry: the cookie declaration could not be loaded:', error));
}
