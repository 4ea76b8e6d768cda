import * as CookieConsent from 'vanilla-cookieconsent';
import type { BannerCategory, BannerConfig, Translated } from './config.ts';
import { clearRejected } from './clearing.ts';
import { pushDefault, pushUpdate } from './consent-mode.ts';
import { releaseGated, watchGated } from './gating.ts';
import { countPageViews, recordConsent } from './recording.ts';
import { itemDescription } from './own-cookie.ts';
import { COOKIE, cookieDomain, eraseOtherCopies, keepNewestCopy, storedChoice } from './stored.ts';
import { chooseLanguage, escapeHtml, textsFor } from './text.ts';
import type { Texts } from './translations.ts';

/** Embedded by the service in each account's script; see src/modules/banner/banner-script.ts. */
declare const __CONSENTRY_CONFIG__: BannerConfig;
/** vanilla-cookieconsent's stylesheet, minified at build time. */
declare const __CONSENTRY_CSS__: string;

declare global {
  interface Navigator {
    globalPrivacyControl?: boolean;
  }
  interface Window {
    Consentry?: ConsentryApi;
  }
}

export interface ConsentState {
  accept_type: 'all' | 'custom' | 'necessary';
  accepted: string[];
  rejected: string[];
  revision: number;
  session_id: string;
  consent_id: string | null;
  gpc: boolean;
}

interface ConsentryApi {
  getConsent(): ConsentState | null;
  acceptedCategory(slug: string): boolean;
  showPreferences(): void;
  onChange(callback: (consent: ConsentState) => void): () => void;
}

const MARKETING = 'marketing';
const config = __CONSENTRY_CONFIG__;
const script = document.currentScript as HTMLScriptElement | null;
const serviceBase = script?.src ? new URL(script.src).origin : '';
const gpc = navigator.globalPrivacyControl === true;
const bySlug = new Map<string, BannerCategory>(config.categories.map((category) => [category.slug, category]));
const listeners = new Set<(consent: ConsentState) => void>();

/**
 * The time in base 36 (8 characters until 2059), then 12 random bytes in hex: 32 characters. Starting
 * with the time, new sessions go to the end of the service's session index instead of anywhere in
 * it. crypto.randomUUID needs a secure context, which an http:// site is not.
 */
function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Date.now().toString(36).padStart(8, '0') + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const previous = storedChoice();
/** The domain the choice is written on: set when the script runs (it tries a cookie). */
let ownDomain: string | undefined;
const secureCookie = location.protocol === 'https:';
let sessionId = previous?.data?.session_id || newSessionId();
let consentId: string | null = previous?.data?.consent_id ?? null;

const returning =
  previous?.revision === config.revision && Array.isArray(previous.categories) && (previous.expirationTime ?? Infinity) > Date.now();

const accepted = (slug: string) => CookieConsent.acceptedCategory(slug);
const rejected = (slug: string) => CookieConsent.validConsent() && !CookieConsent.acceptedCategory(slug);

/** The library answers once it has started (at DOMContentLoaded); until then the stored choice does. */
let started = false;

/** A returning visitor's choice as the library will read it: the required categories, then the stored ones. */
function storedPreferences(): Pick<CookieConsent.UserPreferences, 'acceptType' | 'acceptedCategories' | 'rejectedCategories'> | null {
  if (!returning) return null;
  const required = config.categories.filter((category) => category.required).map((category) => category.slug);
  const acceptedCategories = Array.from(new Set([...required, ...previous!.categories!]));
  const acceptType = acceptedCategories.length === config.categories.length ? 'all' : acceptedCategories.length === required.length ? 'necessary' : 'custom';
  const rejectedCategories = config.categories.map((category) => category.slug).filter((slug) => !acceptedCategories.includes(slug));
  return { acceptType, acceptedCategories, rejectedCategories };
}

function currentPreferences() {
  if (!started) return storedPreferences();
  return CookieConsent.validConsent() ? CookieConsent.getUserPreferences() : null;
}

function state(): ConsentState | null {
  const preferences = currentPreferences();
  if (!preferences) return null;
  return {
    accept_type: preferences.acceptType,
    accepted: preferences.acceptedCategories,
    rejected: preferences.rejectedCategories,
    revision: config.revision,
    session_id: sessionId,
    consent_id: consentId,
    gpc,
  };
}

/** What a valid choice means for the page: Consent Mode, gated elements, storage of rejected categories. */
function apply(): void {
  pushUpdate(CookieConsent.getUserPreferences().acceptedCategories);
  releaseGated(accepted);
  clearRejected(config.categories, rejected);
}

function keepData(): void {
  CookieConsent.setCookieData({ value: { session_id: sessionId, consent_id: consentId }, mode: 'overwrite' });
}

/** How many choices were made on this page: the last one's recording alone sets the consent id. */
let choices = 0;

/** Records the choice; a refused or failed request costs the visitor nothing but the consent id. */
function record(): void {
  const preferences = CookieConsent.getUserPreferences();
  const idsOf = (slugs: string[]) => slugs.map((slug) => bySlug.get(slug)?.id).filter((id): id is string => !!id);
  const body = {
    consent: {
      session_id: sessionId,
      url: location.href.slice(0, 2048),
      gpc,
      user_preferences: {
        accept_type: preferences.acceptType,
        accepted_categories: idsOf(preferences.acceptedCategories),
        rejected_categories: idsOf(preferences.rejectedCategories),
      },
    },
  };
  const made = ++choices;
  void recordConsent(`${serviceBase}/widget/${config.account.id}/consents`, body).then((id) => {
    // Only the latest choice's id is its receipt: an earlier request may answer after it.
    if (!id || made !== choices) return;
    consentId = id;
    keepData();
    showConsentId();
  });
}

function notify(): void {
  const current = state();
  if (!current) return;
  for (const listener of listeners) {
    try {
      listener(current);
    } catch (error) {
      setTimeout(() => { throw error; });
    }
  }
  window.dispatchEvent(new CustomEvent('consentry:change', { detail: current }));
}

function onChoice(): void {
  // The previous choice's receipt is not this one's: no id until this choice is recorded.
  consentId = null;
  showConsentId();
  eraseOtherCopies(ownDomain);
  keepData();
  record();
  notify();
}

/**
 * The library injects a section's title and a table's headers as markup, so they are given escaped;
 * it also uses them as text — a category's title as the name of its switch, a header as each cell's
 * label (`data-column`) — where the escaping would show: there they get the plain words.
 */
function plainLabels(modal: HTMLElement): void {
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
function showConsentId(modal: Element | null = document.querySelector('#cc-main .pm')): void {
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

const tableHeaders = (t: Texts) => ({ name: t.cookie_name, domain: t.cookie_domain, duration: t.cookie_duration, description: t.cookie_description });

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

function translation(t: Texts): CookieConsent.Translation {
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

function guiOptions(): CookieConsent.GuiOptions {
  const { layout, position } = config.banner;
  const vertical = position.split(' ')[0];
  const consentPosition = layout === 'bar' ? (vertical === 'top' ? 'top' : 'bottom') : position;
  return {
    consentModal: { layout, position: consentPosition as CookieConsent.ConsentModalPosition, equalWeightButtons: true },
    preferencesModal: { layout: 'box', equalWeightButtons: true },
  };
}

function injectStyle(): void {
  const style = document.createElement('style');
  const { theme } = config.banner;
  const vars = [
    theme.background && `--cc-bg:${theme.background};--cc-modal-bg:${theme.background}`,
    theme.text && `--cc-primary-color:${theme.text};--cc-secondary-color:${theme.text}`,
    theme.primary && `--cc-btn-primary-bg:${theme.primary};--cc-btn-primary-border-color:${theme.primary};--cc-btn-primary-hover-bg:${theme.primary};--cc-toggle-on-bg:${theme.primary}`,
    theme.primary_text && `--cc-btn-primary-color:${theme.primary_text};--cc-btn-primary-hover-color:${theme.primary_text}`,
  ].filter(Boolean);
  // A category without a description or items has nothing to expand: the library leaves its arrow unsized.
  const fixes = '#cc-main .pm__section--toggle:not(.pm__section--expandable) .pm__section-arrow{display:none}';
  style.textContent = __CONSENTRY_CSS__ + fixes + (vars.length ? `#cc-main{${vars.join(';')}}` : '');
  (document.head || document.documentElement).appendChild(style);
}

/**
 * Under Global Privacy Control, "Accept all" leaves marketing off unless the visitor switched it on
 * in the preferences: the signal is the visitor's standing refusal of sale and targeted ads.
 */
function honourGpc(): void {
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

const language = chooseLanguage(Object.keys(config.texts), config.banner.language_sources, {
  browser: navigator.languages || [navigator.language],
  page: [document.documentElement.lang],
  default: [config.account.default_language],
});
const texts = textsFor(config, language);

/** The account's words for a category, item or service in the visitor's language, else its default text. */
function own<K extends string>(thing: { [key in K]: string } & { translations: Translated<K> }, key: K): string {
  return thing.translations[language]?.[key] || thing[key];
}

function start(): void {
  injectStyle();
  honourGpc();
  const categories: Record<string, CookieConsent.Category> = {};
  for (const category of config.categories) {
    categories[category.slug] = { enabled: category.required, readOnly: category.required };
  }
  started = true;
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
  // Consent Mode first: before any tag on the page can read it.
  pushDefault();
  if (returning) pushUpdate(previous!.categories!);
  ownDomain = cookieDomain(config.account.domain);
  keepNewestCopy(ownDomain, secureCookie);

  window.Consentry = {
    getConsent: state,
    acceptedCategory: (slug) => !!currentPreferences()?.acceptedCategories.includes(slug),
    showPreferences: () => CookieConsent.showPreferences(),
    onChange(callback) {
      listeners.add(callback);
      return () => listeners.delete(callback);
    },
  };

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();

  countPageViews(`${serviceBase}/widget/${config.account.id}/views`);
}

// A second copy of the script (the tag pasted twice, or a tag manager adding it again) would replace
// window.Consentry with an API over a library that never starts (it runs once per page) and push
// Consent Mode's default again, after the first copy's update: only the first copy runs.
if (window.Consentry) console.warn('Consentry: the banner script is on this page more than once; only its first copy runs.');
else boot();
