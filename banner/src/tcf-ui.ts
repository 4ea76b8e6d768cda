/**
 * The TCF screens, as the TCF policy for CMPs asks them (Appendix B of the policies):
 *
 * - the first layer names the purposes and special features, the number of vendors, that consent
 *   can be withdrawn at any time, and has "Accept all", "Reject all" and the way to the second layer
 *   side by side, as buttons of one look;
 * - the second layer lists the purposes, special purposes, features and special features with their
 *   descriptions, and every vendor with its purposes, legitimate interests, special purposes,
 *   features, retention, data categories, storage and privacy link; switches for each purpose, special
 *   feature and vendor (consent, and for legitimate interest the right to object).
 *
 * Plain DOM built with text nodes (the vendor list's texts never become markup), native buttons,
 * checkboxes with `role="switch"` and `<details>`, each layer a modal dialog that keeps the focus
 * and gives it back when it closes; Escape leaves the second layer.
 */

import type { GVL } from '@iabtechlabtcf/core';
import type { BannerLook, BannerTcf } from './config.ts';
import { liPurposes, type TcfChoice } from './tcf-consent.ts';
import type { TcfTexts } from './tcf-texts.ts';
import type { Texts } from './translations.ts';

export interface ScreensInput {
  gvl: GVL;
  tcf: BannerTcf;
  /** The visitor's language, for the vendors' links. */
  language: string;
  /** The banner's own words (title, buttons), the account's. */
  texts: Texts;
  tcfTexts: TcfTexts;
  look: Pick<BannerLook, 'theme' | 'privacy_policy_url'>;
  /** The switches' state when the second layer opens. */
  current: () => TcfChoice;
  /** The visitor's choice is in force: the second layer's "Back" closes it rather than going back to the first. */
  chosen: () => boolean;
  /** A choice made: on the first layer (screen 1) or the second (2). */
  decide(choice: TcfChoice, screen: 1 | 2): void;
  /** "Accept all" or "Reject all" on either layer. */
  all(accept: boolean, screen: 1 | 2): void;
}

export interface Screens {
  showFirst(): void;
  showSecond(): void;
  hide(): void;
}

type Child = Node | string | null | undefined | false;

function el(tag: string, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) if (child) node.append(child);
  return node;
}

const fill = (text: string, values: Record<string, string | number>) => text.replace(/\{(\w+)\}/g, (_, key: string) => String(values[key] ?? ''));

/** A vendor's link only when it is a web address: the vendor list is input from outside. */
const webAddress = (url: string | undefined) => (url && /^https?:\/\//i.test(url) ? url : undefined);

let lastId = 0;
const newId = () => `ctcf-${++lastId}`;

function style(look: ScreensInput['look']): HTMLStyleElement {
  const { background, text, primary, primary_text } = look.theme;
  const css = `
#consentry-tcf{--ctcf-bg:${background ?? '#fff'};--ctcf-fg:${text ?? '#1f2328'};--ctcf-primary:${primary ?? '#1f4fd1'};--ctcf-on-primary:${primary_text ?? '#fff'};font:15px/1.45 system-ui,sans-serif}
#consentry-tcf [hidden]{display:none!important}
#consentry-tcf .ctcf-backdrop{position:fixed;inset:0;background:rgba(0,0,0,.45);z-index:2147483646}
#consentry-tcf .ctcf-layer{position:fixed;z-index:2147483647;background:var(--ctcf-bg);color:var(--ctcf-fg);box-shadow:0 6px 30px rgba(0,0,0,.3);border-radius:10px;padding:20px 24px;box-sizing:border-box;max-height:92vh;overflow:auto}
#consentry-tcf .ctcf-first{left:50%;bottom:16px;transform:translateX(-50%);width:min(720px,calc(100vw - 24px))}
#consentry-tcf .ctcf-second{left:50%;top:50%;transform:translate(-50%,-50%);width:min(820px,calc(100vw - 24px));display:flex;flex-direction:column;padding:0}
#consentry-tcf .ctcf-second>header,#consentry-tcf .ctcf-second>footer{padding:16px 24px}
#consentry-tcf .ctcf-scroll{overflow:auto;padding:0 24px;flex:1}
#consentry-tcf h2{font-size:1.25em;margin:0 0 8px}
#consentry-tcf h3{font-size:1.05em;margin:18px 0 6px}
#consentry-tcf ul{margin:4px 0 8px;padding-left:20px}
#consentry-tcf a,#consentry-tcf .ctcf-link{color:var(--ctcf-primary);text-decoration:underline;background:none;border:0;padding:0;font:inherit;cursor:pointer}
#consentry-tcf .ctcf-actions{display:flex;flex-wrap:wrap;gap:10px;margin-top:14px}
#consentry-tcf .ctcf-btn{flex:1 1 180px;font:inherit;font-weight:600;padding:10px 14px;border-radius:6px;border:2px solid var(--ctcf-primary);background:var(--ctcf-primary);color:var(--ctcf-on-primary);cursor:pointer}
#consentry-tcf .ctcf-item{border-top:1px solid rgba(128,128,128,.35);padding:8px 0}
#consentry-tcf .ctcf-item summary{cursor:pointer;font-weight:600}
#consentry-tcf .ctcf-switches{display:flex;flex-wrap:wrap;gap:16px;margin-top:4px}
#consentry-tcf .ctcf-switches label{display:inline-flex;gap:6px;align-items:center;cursor:pointer}
#consentry-tcf input[type=checkbox]{width:18px;height:18px;accent-color:var(--ctcf-primary)}
#consentry-tcf .ctcf-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
#consentry-tcf :focus-visible{outline:3px solid var(--ctcf-primary);outline-offset:2px}
#consentry-tcf dl{margin:6px 0}#consentry-tcf dt{font-weight:600;margin-top:4px}#consentry-tcf dd{margin:0 0 0 12px}`;
  return el('style', {}, css) as HTMLStyleElement;
}

const FOCUSABLE = 'button,a[href],input,summary,[tabindex]:not([tabindex="-1"])';

/** Keeps Tab inside `layer` (a modal dialog), and calls `escape` on Escape. */
function holdFocus(layer: HTMLElement, escape?: () => void): void {
  layer.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && escape) {
      event.preventDefault();
      escape();
      return;
    }
    if (event.key !== 'Tab') return;
    const focusable = Array.from(layer.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((node) => node.offsetParent !== null || node === document.activeElement);
    if (focusable.length === 0) return;
    const [first, last] = [focusable[0], focusable[focusable.length - 1]];
    if (event.shiftKey && (document.activeElement === first || document.activeElement === layer)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  });
}

export function buildScreens(input: ScreensInput): Screens {
  const { gvl, texts, tcfTexts: tt } = input;
  const purposes = Object.values(gvl.purposes);
  const specialFeatures = Object.values(gvl.specialFeatures);
  const vendors = Object.values(gvl.vendors).sort((a, b) => a.name.localeCompare(b.name));
  const count = vendors.length;
  const nameOf = (map: Record<string, { name: string }> | undefined, id: number) => map?.[id]?.name ?? `#${id}`;
  const withLi = new Set(liPurposes(gvl, input.tcf));

  const root = el('div', { id: 'consentry-tcf', lang: input.language });
  root.append(style(input.look));
  const backdrop = el('div', { class: 'ctcf-backdrop', hidden: '' });
  root.append(backdrop);

  const button = (label: string, onClick: () => void, className = 'ctcf-btn') => {
    const node = el('button', { type: 'button', class: className }, label);
    node.addEventListener('click', onClick);
    return node;
  };
  const policyLink = input.look.privacy_policy_url ? el('a', { href: input.look.privacy_policy_url, target: '_blank', rel: 'noopener' }, texts.privacy_policy) : null;

  // The first layer.
  const firstTitle = newId();
  const firstText = newId();
  const first = el('div', { class: 'ctcf-layer ctcf-first', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': firstTitle, 'aria-describedby': firstText, tabindex: '-1', hidden: '' },
    el('h2', { id: firstTitle }, texts.title),
    el('p', { id: firstText }, fill(tt.intro, { count })),
    el('p', {}, tt.purposes_heading),
    el('ul', {}, ...purposes.map((purpose) => el('li', {}, purpose.name)), ...specialFeatures.map((feature) => el('li', {}, feature.name))),
    el('p', {}, tt.withdraw),
    el('p', {}, button(`${fill(tt.vendors_count, { count })}: ${tt.vendors_show}`, () => show('second', 'vendors'), 'ctcf-link'), policyLink ? ' · ' : '', policyLink),
    el('div', { class: 'ctcf-actions' },
      button(texts.accept_all, () => input.all(true, 1)),
      button(texts.reject_all, () => input.all(false, 1)),
      button(texts.manage, () => show('second'))),
  );

  // The second layer: its switches read and write `draft`, the choice being made.
  let draft = input.current();
  const switches: { input: HTMLInputElement; set: () => Set<number> | boolean; id: number }[] = [];
  const toggle = (label: string, what: string, set: () => Set<number>, id: number) => {
    const box = el('input', { type: 'checkbox', role: 'switch' }) as HTMLInputElement;
    box.addEventListener('change', () => {
      if (box.checked) set().add(id);
      else set().delete(id);
    });
    switches.push({ input: box, set, id });
    return el('label', {}, box, el('span', { class: 'ctcf-sr' }, `${what}: `), label);
  };
  const described = (name: string, description: string, illustrations: string[] | undefined, ...controls: Child[]) =>
    el('div', { class: 'ctcf-item' },
      el('details', {}, el('summary', {}, name), el('p', {}, description), illustrations?.length ? el('ul', {}, ...illustrations.map((text) => el('li', {}, text))) : null),
      controls.some(Boolean) ? el('div', { class: 'ctcf-switches' }, ...controls) : null);
  const section = (title: string, key: string, ...items: Child[]) => {
    const id = `ctcf-${key}`;
    return el('section', { 'aria-labelledby': id }, el('h3', { id, tabindex: '-1' }, title), ...items);
  };

  const purposeItems = purposes.map((purpose) => described(purpose.name, purpose.description, purpose.illustrations,
    toggle(tt.consent, purpose.name, () => draft.purposes, purpose.id),
    withLi.has(purpose.id) && toggle(tt.legitimate_interest, purpose.name, () => draft.purposeLi, purpose.id)));
  const featureItems = specialFeatures.map((feature) => described(feature.name, feature.description, feature.illustrations,
    toggle(tt.consent, feature.name, () => draft.specialFeatures, feature.id)));
  const plain = (list: { name: string; description: string; illustrations?: string[] }[]) => list.map((item) => described(item.name, item.description, item.illustrations));

  const names = (map: Record<string, { name: string }> | undefined, list: number[] | undefined) => (list ?? []).map((id) => nameOf(map, id)).join(', ');
  const vendorItems = vendors.map((vendor) => {
    const urls = vendor.urls ?? [];
    const url = urls.find((entry) => entry.langId === input.language.split('-')[0]) ?? urls.find((entry) => entry.langId === 'en') ?? urls[0];
    const privacy = webAddress(url?.privacy ?? vendor.policyUrl);
    const claim = webAddress(url?.legIntClaim);
    const retention = vendor.dataRetention;
    const retentionText = retention
      ? [retention.stdRetention !== undefined ? `${retention.stdRetention} ${tt.days}` : '',
        ...Object.entries(retention.purposes ?? {}).map(([id, days]) => `${nameOf(gvl.purposes, Number(id))}: ${days} ${tt.days}`),
        ...Object.entries(retention.specialPurposes ?? {}).map(([id, days]) => `${nameOf(gvl.specialPurposes, Number(id))}: ${days} ${tt.days}`)].filter(Boolean).join('; ')
      : '';
    const facts: [string, Child][] = [
      [tt.purposes + ` (${tt.consent})`, names(gvl.purposes, vendor.purposes)],
      [tt.legitimate_interest, names(gvl.purposes, vendor.legIntPurposes)],
      [tt.special_purposes.split(' (')[0], names(gvl.specialPurposes, vendor.specialPurposes)],
      [tt.features.split(' (')[0], names(gvl.features, vendor.features)],
      [tt.special_features, names(gvl.specialFeatures, vendor.specialFeatures)],
      [tt.retention, retentionText],
      [tt.data_categories, names(gvl.dataCategories, vendor.dataDeclaration)],
      [tt.storage.split(':')[0], vendor.usesCookies && typeof vendor.cookieMaxAgeSeconds === 'number' ? fill(tt.storage, { days: Math.ceil(vendor.cookieMaxAgeSeconds / 86400) }).split(': ')[1] : ''],
    ];
    const links = [
      privacy && el('a', { href: privacy, target: '_blank', rel: 'noopener' }, tt.privacy_link),
      vendor.legIntPurposes.length > 0 && claim && el('a', { href: claim, target: '_blank', rel: 'noopener' }, tt.li_claim_link),
    ].filter(Boolean) as HTMLElement[];
    return el('div', { class: 'ctcf-item' },
      el('details', {}, el('summary', {}, vendor.name),
        el('dl', {}, ...facts.filter(([, value]) => value).flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)])),
        links.length ? el('p', {}, ...links.flatMap((link, i) => (i ? [' · ', link] : [link]))) : null),
      el('div', { class: 'ctcf-switches' },
        vendor.purposes.length > 0 && toggle(tt.consent, vendor.name, () => draft.vendors, vendor.id),
        vendor.legIntPurposes.length > 0 && toggle(tt.legitimate_interest, vendor.name, () => draft.vendorLi, vendor.id)));
  });

  const atpCount = new Set(input.tcf.google_atp_ids).size;
  const atpBox = el('input', { type: 'checkbox', role: 'switch' }) as HTMLInputElement;
  atpBox.addEventListener('change', () => {
    draft.atp = atpBox.checked;
  });

  const secondTitle = newId();
  const closeSecond = () => (input.chosen() ? hide() : show('first'));
  const second = el('div', { class: 'ctcf-layer ctcf-second', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': secondTitle, tabindex: '-1', hidden: '' },
    el('header', {}, el('h2', { id: secondTitle }, texts.preferences_title), el('p', {}, tt.withdraw), el('p', {}, tt.object_hint)),
    el('div', { class: 'ctcf-scroll' },
      section(tt.purposes, 'purposes', ...purposeItems),
      featureItems.length ? section(tt.special_features, 'special-features', ...featureItems) : null,
      section(tt.special_purposes, 'special-purposes', ...plain(Object.values(gvl.specialPurposes))),
      section(tt.features, 'features', ...plain(Object.values(gvl.features))),
      section(`${tt.vendors} (${count})`, 'vendors', ...vendorItems),
      atpCount > 0 ? section(tt.atp, 'atp', el('p', {}, fill(tt.atp_description, { count: atpCount })),
        el('div', { class: 'ctcf-switches' }, el('label', {}, atpBox, el('span', { class: 'ctcf-sr' }, `${tt.atp}: `), tt.consent))) : null,
    ),
    el('footer', {}, el('div', { class: 'ctcf-actions' },
      button(texts.accept_all, () => input.all(true, 2)),
      button(texts.reject_all, () => input.all(false, 2)),
      button(texts.save, () => input.decide(draft, 2)),
      button(tt.back, closeSecond))),
  );
  holdFocus(first);
  holdFocus(second, closeSecond);
  root.append(first, second);

  let returnFocus: Element | null = null;
  function show(layer: 'first' | 'second', at?: string): void {
    if (!root.isConnected) document.body.append(root);
    if (first.hidden && second.hidden) returnFocus = document.activeElement;
    if (layer === 'second') {
      draft = input.current();
      for (const entry of switches) entry.input.checked = (entry.set() as Set<number>).has(entry.id);
      atpBox.checked = draft.atp;
    }
    backdrop.hidden = false;
    first.hidden = layer !== 'first';
    second.hidden = layer !== 'second';
    const shown = layer === 'first' ? first : second;
    const target = at ? shown.querySelector<HTMLElement>(`#ctcf-${at}`) : null;
    (target ?? shown).focus();
    target?.scrollIntoView();
  }
  function hide(): void {
    first.hidden = second.hidden = backdrop.hidden = true;
    if (returnFocus instanceof HTMLElement && returnFocus.isConnected) returnFocus.focus();
    returnFocus = null;
  }
  return { showFirst: () => show('first'), showSecond: () => show('second'), hide };
}
