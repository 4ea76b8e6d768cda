import { BUILT_IN_LANGUAGES, TEXT_KEYS, TRANSLATIONS, type Texts } from '../../../banner/src/translations.ts';
import type { Executor } from '../../db/kysely.ts';
import { found, ValidationError } from '../../http/app-errors.ts';
import { Problems } from '../../http/validation.ts';
import { findBanner, incrementRevision, saveBanner, type BannerRow } from './banner.repository.ts';
import type { BannerChanges, BannerSettings } from './banner.schema.ts';
import { isWebUrl } from '../../lib/web-url.ts';

export const DEFAULT_LOOK: Omit<BannerSettings, 'account_id' | 'translations' | 'revision'> = {
  layout: 'box',
  position: 'bottom right',
  theme: { background: null, text: null, primary: null, primary_text: null },
  privacy_policy_url: null,
  show_reject_all: true,
  consent_expiry_days: 365,
};

type StoredTexts = Record<string, Partial<Texts>>;

/** The stored settings (only what the account set) over the defaults. */
export function settingsOf(row: BannerRow): BannerSettings {
  const stored = row.banner as Partial<BannerSettings>;
  return {
    account_id: row.id,
    ...DEFAULT_LOOK,
    ...stored,
    theme: { ...DEFAULT_LOOK.theme, ...stored.theme },
    translations: stored.translations ?? {},
    revision: row.revision,
  };
}

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** `de-CH` falls back to `de`. */
const primaryOf = (code: string) => code.split('-')[0];

/**
 * A language tag in its canonical form whose language the runtime knows: `de`, `de-CH`, `pt-BR`,
 * `zh-Hant`; not `xx`, nor `EN` or `de-ch`: one spelling per language, so that no language is stored twice.
 */
export function knownLanguage(code: string): boolean {
  if ((BUILT_IN_LANGUAGES as readonly string[]).includes(code)) return true;
  if (code.length > 35 || !/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(code)) return false;
  try {
    if (Intl.getCanonicalLocales(code)[0] !== code) return false;
  } catch {
    return false;
  }
  return languageNames.of(primaryOf(code)) !== undefined;
}

export async function getBanner(db: Executor, accountId: string): Promise<BannerSettings> {
  const row = found(await findBanner(db, accountId));
  return settingsOf(row);
}

/** Refuses a privacy policy address that is not a web page, and a language nobody knows. */
function checkChanges(changes: BannerChanges): void {
  const problems = new Problems();
  if (changes.privacy_policy_url) {
    changes.privacy_policy_url = changes.privacy_policy_url.trim();
    if (!isWebUrl(changes.privacy_policy_url)) problems.add('privacy_policy_url', 'is invalid');
  }
  for (const code of Object.keys(changes.translations ?? {})) {
    if (!knownLanguage(code)) problems.add('translations', `has an unknown language code: ${code.length > 35 ? `${code.slice(0, 35)}…` : code}`);
  }
  problems.throwIfAny();
}

/** Languages an account may word its banner in: every visitor downloads all of them with the script. */
const MAX_LANGUAGES = 30;

/** What the account set, with the changes merged in: a theme colour or a language's text at a time. */
function merged(row: BannerRow, changes: BannerChanges): Record<string, unknown> {
  const stored = { ...(row.banner as Record<string, unknown>) };
  const { theme, translations, ...plain } = changes;
  Object.assign(stored, plain);
  if (plain.privacy_policy_url === '') stored.privacy_policy_url = null;
  if (theme) stored.theme = { ...(stored.theme as object), ...theme };
  if (translations) {
    const texts: StoredTexts = { ...(stored.translations as StoredTexts) };
    for (const [code, given] of Object.entries(translations)) {
      // An empty text is no text: the built-in words show, as for null.
      const merged = Object.entries({ ...texts[code], ...given }).filter(([, text]) => text !== null && text.trim() !== '');
      if (given === null || merged.length === 0) delete texts[code];
      else texts[code] = Object.fromEntries(merged);
    }
    if (Object.keys(texts).length > MAX_LANGUAGES) {
      throw new ValidationError(`Translations has too many languages (maximum is ${MAX_LANGUAGES})`);
    }
    stored.translations = texts;
  }
  return stored;
}

export async function changeBanner(db: Executor, accountId: string, changes: BannerChanges): Promise<BannerSettings> {
  checkChanges(changes);
  return db.transaction().execute(async (trx) => {
    const row = found(await findBanner(trx, accountId));
    const saved = found(await saveBanner(trx, accountId, merged(row, changes)));
    return settingsOf(saved);
  });
}

/** The settings the changes would give, checked as a save checks them, and not saved. */
export async function previewBanner(db: Executor, accountId: string, changes: BannerChanges): Promise<BannerSettings> {
  checkChanges(changes);
  const row = found(await findBanner(db, accountId));
  return settingsOf({ ...row, banner: merged(row, changes) });
}

/** Asks every visitor again: their stored choices now carry an older revision. */
export async function requestReconsent(db: Executor, accountId: string): Promise<BannerSettings> {
  const row = found(await incrementRevision(db, accountId));
  return settingsOf(row);
}

/** For the categories: adding or removing one changes what visitors were asked. */
export async function bumpRevision(db: Executor, accountId: string): Promise<void> {
  await incrementRevision(db, accountId);
}

/**
 * Complete texts for every language the banner can speak: the built-in ones and any the account
 * added, each the account's words over the built-in ones over English.
 */
export function bannerTexts(settings: BannerSettings): Record<string, Texts> {
  const languages = new Set<string>([...BUILT_IN_LANGUAGES, ...Object.keys(settings.translations)]);
  const texts: Record<string, Texts> = {};
  for (const code of languages) {
    const primary = primaryOf(code);
    const base = TRANSLATIONS[code as keyof typeof TRANSLATIONS] ?? TRANSLATIONS[primary as keyof typeof TRANSLATIONS] ?? TRANSLATIONS.en;
    const own = settings.translations[code] ?? {};
    const ownPrimary = (primary !== code && settings.translations[primary]) || {};
    const merged = {} as Texts;
    for (const key of TEXT_KEYS) merged[key] = own[key] || ownPrimary[key] || base[key];
    texts[code] = merged;
  }
  return texts;
}

/** The settings of an account, or undefined when it is gone: for the public widget. */
export async function findBannerSettings(db: Executor, accountId: string): Promise<BannerSettings | undefined> {
  const row = await findBanner(db, accountId);
  return row && settingsOf(row);
}
