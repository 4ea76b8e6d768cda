/**
 * The cookie declaration: the account's finalised storage items by published category, with purpose,
 * provider, duration and type, in one of the languages the banner speaks. Made from the configuration
 * the account's script is built with (banner-script.ts, in memory), so that it says what the banner
 * says and costs no query; the banner script fetches it only on a page that asks for it
 * (`<div id="consentry-declaration">`), and the service serves it as a page of its own.
 */
import type { BannerCategory, BannerConfig, BannerStorageItem } from '../../../banner/src/config.ts';
import { DECLARATION_TRANSLATIONS, shippedFor, type DeclarationTexts } from '../../../banner/src/declaration-texts.ts';
import { itemDescription } from '../../../banner/src/own-cookie.ts';
import { chooseLanguage, escapeHtml } from '../../../banner/src/text.ts';

export interface DeclarationItem {
  name: string;
  provider: string;
  domain: string;
  purpose: string;
  duration: string;
  type: BannerStorageItem['storage_type'];
}

export interface DeclarationCategory {
  slug: string;
  name: string;
  description: string;
  required: boolean;
  items: DeclarationItem[];
}

export interface Declaration {
  language: string;
  /** Every language the banner speaks: the declaration is served in each. */
  languages: string[];
  texts: DeclarationTexts;
  categories: DeclarationCategory[];
  /** The same, as markup whose every word is escaped: what the banner script shows. */
  html: string;
}

/** The first of `asked` (language tags, best first) that the banner speaks, else the account's default language. */
export function declarationLanguage(config: BannerConfig, asked: readonly string[]): string {
  return chooseLanguage(Object.keys(config.texts), [], { browser: [], page: [], default: [...asked, config.account.default_language] });
}

/** `de-CH,de;q=0.9,en;q=0.5` → `de-CH`, `de`, `en`: an Accept-Language header's tags, best first (bounded). */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header.slice(0, 512).split(',').slice(0, 20)
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = Number(params.find((param) => param.trim().startsWith('q='))?.trim().slice(2) ?? '1');
      return { tag: tag.trim(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter(({ tag, q }) => q > 0 && /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag))
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map(({ tag }) => tag);
}

const TYPE_TEXT = { cookie: 'type_cookie', local_storage: 'type_local_storage', session_storage: 'type_session_storage' } as const;

function categoryOf(config: BannerConfig, category: BannerCategory, language: string): DeclarationCategory {
  const own = <K extends string>(thing: { [key in K]: string } & { translations: Record<string, { [key in K]?: string }> }, key: K) =>
    thing.translations[language]?.[key] || thing[key];
  return {
    slug: category.slug,
    name: own(category, 'name'),
    description: own(category, 'description'),
    required: category.required,
    items: category.storage_items.map((item) => ({
      name: item.name,
      provider: item.company_name || item.domain,
      domain: item.domain,
      purpose: itemDescription({ name: item.name, description: own(item, 'description') }, config.account.id, language),
      duration: own(item, 'duration'),
      type: item.storage_type,
    })),
  };
}

/** The declaration as markup: a section per category, each with a table whose caption and headers name what it holds. */
export function declarationHtml(declaration: Omit<Declaration, 'html'>): string {
  const t = declaration.texts;
  const e = escapeHtml;
  const headers = [t.name, t.provider, t.purpose, t.duration, t.type].map((header) => `<th scope="col">${e(header)}</th>`).join('');
  const sections = declaration.categories.map((category, index) => {
    const id = `consentry-declaration-${index}`;
    const rows = category.items.map((item) =>
      `<tr><th scope="row">${e(item.name)}</th><td>${e(item.provider)}</td><td>${e(item.purpose)}</td>` +
      `<td>${e(item.duration)}</td><td>${e(t[TYPE_TEXT[item.type]])}</td></tr>`).join('');
    const table = category.items.length === 0
      ? `<p class="consentry-declaration__empty">${e(t.no_items)}</p>`
      : `<table><caption>${e(t.caption.replace('{category}', category.name))}</caption><thead><tr>${headers}</tr></thead><tbody>${rows}</tbody></table>`;
    return `<section class="consentry-declaration__category" aria-labelledby="${id}"><h2 id="${id}">${e(category.name)}</h2>` +
      (category.description ? `<p>${e(category.description)}</p>` : '') +
      (category.required ? `<p class="consentry-declaration__required">${e(t.always_on)}</p>` : '') +
      `${table}</section>`;
  });
  return `<p class="consentry-declaration__intro">${e(t.intro)}</p>${sections.join('')}`;
}

const made = new WeakMap<BannerConfig, Map<string, Declaration>>();

/**
 * The declaration in `language` (one the banner speaks), made once per built configuration: a change
 * of the account's content builds a new configuration, and with it a new declaration.
 */
export function declarationOf(config: BannerConfig, language: string): Declaration {
  let byLanguage = made.get(config);
  if (!byLanguage) made.set(config, (byLanguage = new Map()));
  const cached = byLanguage.get(language);
  if (cached) return cached;
  const base = {
    language,
    languages: Object.keys(config.texts),
    texts: shippedFor(DECLARATION_TRANSLATIONS, language),
    categories: config.categories.map((category) => categoryOf(config, category, language)),
  };
  const declaration = { ...base, html: declarationHtml(base) };
  byLanguage.set(language, declaration);
  return declaration;
}
