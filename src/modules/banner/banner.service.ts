import { LANGUAGE_SOURCES } from '../../../banner/src/config.ts';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import { TEXT_KEYS, TRANSLATIONS, type Texts } from '../../../banner/src/translations.ts';
import type { Executor } from '../../db/kysely.ts';
import { found } from '../../http/app-errors.ts';
import { Problems } from '../../http/validation.ts';
import { findBanner, incrementRevision, saveBanner, type BannerRow } from './banner.repository.ts';
import type { BannerChanges, BannerSettings } from './banner.schema.ts';
import { checkLanguageCodes, mergeTranslations, offeredLanguages, primaryOf } from './languages.ts';
import { regionalChanges, regionalSettingsOf, regionalValues, type RegionalColumns, type RegionalSettings } from './regional-settings.ts';
import { isWebUrl } from '../../lib/web-url.ts';
import { mergeTcfChanges, tcfSettingsOf, type TcfSettings, type VendorListFacts } from '../tcf/tcf.service.ts';

/** What other modules use of the languages: the checks and merging of their own texts in other languages. */
export { checkLanguageCodes, knownLanguage, mergeTranslations, translationsFor, type TranslationChanges } from './languages.ts';
/** And of the regional settings: the rules as the banner script is given them. */
export { bannerRegions } from './regional-settings.ts';

export const DEFAULT_LOOK: Omit<BannerSettings, 'account_id' | 'translations' | 'languages' | 'revision' | 'tcf' | keyof RegionalSettings> = {
  layout: 'box',
  position: 'bottom right',
  theme: { background: null, text: null, primary: null, primary_text: null },
  privacy_policy_url: null,
  show_reject_all: true,
  consent_expiry_days: 365,
  language_sources: [...LANGUAGE_SOURCES],
};

type StoredTexts = Record<string, Partial<Texts>>;

/** The stored settings (only what the account set) over the defaults. */
export function settingsOf(row: BannerRow): BannerSettings {
  const { languages, ...stored } = row.banner as Partial<BannerSettings>;
  const translations = stored.translations ?? {};
  return {
    account_id: row.id,
    ...DEFAULT_LOOK,
    ...stored,
    theme: { ...DEFAULT_LOOK.theme, ...stored.theme },
    translations,
    languages: offeredLanguages(row.default_language, languages, Object.keys(translations)),
    revision: row.revision,
    ...regionalSettingsOf(row),
    tcf: tcfSettingsOf(stored.tcf),
  };
}

export async function getBanner(db: Executor, accountId: string): Promise<BannerSettings> {
  const row = found(await findBanner(db, accountId));
  return settingsOf(row);
}

/** What a change sets besides the `banner` column's look and texts. */
interface CheckedChanges {
  regional: Partial<RegionalColumns>;
  /** The TCF settings after the change, when it changes them. */
  tcf?: TcfSettings;
}

/**
 * Refuses a privacy policy address that is not a web page, a language nobody knows, a region
 * code or mode that is none, and TCF settings that cannot work (`gvl`: the vendor list in force);
 * gives the regional columns and the TCF settings the changes set.
 */
function checkChanges(changes: BannerChanges, row: BannerRow, gvl: VendorListFacts | undefined): CheckedChanges {
  const problems = new Problems();
  if (changes.privacy_policy_url) {
    changes.privacy_policy_url = changes.privacy_policy_url.trim();
    if (!isWebUrl(changes.privacy_policy_url)) problems.add('privacy_policy_url', 'is invalid');
  }
  checkLanguageCodes(problems, 'translations', Object.keys(changes.translations ?? {}));
  checkLanguageCodes(problems, 'languages', changes.languages ?? []);
  const regional = regionalChanges(problems, changes, row);
  const tcf = changes.tcf === undefined ? undefined : mergeTcfChanges(problems, tcfSettingsOf(row.banner.tcf), changes.tcf, gvl);
  problems.throwIfAny();
  return { regional, tcf };
}

/** What the account set of its look and texts, with the changes merged in: a theme colour or a language's text at a time. */
function merged(row: BannerRow, changes: BannerChanges, tcf?: TcfSettings): Record<string, unknown> {
  const stored = { ...(row.banner as Record<string, unknown>) };
  // The regional settings have columns of their own; the TCF settings come checked and merged.
  const { theme, translations, regional_rules: _rules, default_mode: _mode, consent_mode: _consentMode, tcf: _tcf, ...plain } = changes;
  if (changes.tcf === null) delete stored.tcf;
  else if (tcf) stored.tcf = tcf;
  Object.assign(stored, plain);
  if (plain.privacy_policy_url === '') stored.privacy_policy_url = null;
  // No languages chosen: the default ones.
  if (plain.languages === null) delete stored.languages;
  if (theme) stored.theme = { ...(stored.theme as object), ...theme };
  // An empty text is no text: the built-in words show, as for null.
  if (translations) stored.translations = mergeTranslations((stored.translations ?? {}) as StoredTexts, translations);
  return stored;
}

/**
 * Saves the changes. None of them raises the revision: a visitor's stored choice stays theirs when
 * the look, the texts or the regional rules change (a rule decides how visitors who have not chosen
 * are asked, not what a choice meant).
 */
export async function changeBanner(db: Executor, accountId: string, changes: BannerChanges, gvl?: VendorListFacts): Promise<BannerSettings> {
  return db.transaction().execute(async (trx) => {
    const row = found(await findBanner(trx, accountId));
    const { regional, tcf } = checkChanges(changes, row, gvl);
    const saved = found(await saveBanner(trx, accountId, merged(row, changes, tcf), regionalValues(regional)));
    const after = settingsOf(saved);
    await recordAudit(trx, { accountId, resourceType: 'banner', resourceId: accountId, action: 'update', before: settingsOf(row), after });
    return after;
  });
}

/** The settings the changes would give, checked as a save checks them, and not saved. */
export async function previewBanner(db: Executor, accountId: string, changes: BannerChanges, gvl?: VendorListFacts): Promise<BannerSettings> {
  const row = found(await findBanner(db, accountId));
  const { regional, tcf } = checkChanges(changes, row, gvl);
  return settingsOf({ ...row, ...regional, banner: merged(row, changes, tcf) });
}

/** Asks every visitor again: their stored choices now carry an older revision. */
export async function requestReconsent(db: Executor, accountId: string): Promise<BannerSettings> {
  return db.transaction().execute(async (trx) => {
    const row = found(await incrementRevision(trx, accountId));
    await recordAudit(trx, { accountId, resourceType: 'banner', resourceId: accountId, action: 'reconsent', before: { revision: row.revision - 1 }, after: { revision: row.revision } });
    return settingsOf(row);
  });
}

/** For the categories: adding or removing one changes what visitors were asked. */
export async function bumpRevision(db: Executor, accountId: string): Promise<void> {
  await incrementRevision(db, accountId);
}

/**
 * Complete texts for every language the banner speaks, each the account's words over the built-in
 * ones over English.
 */
export function bannerTexts(settings: BannerSettings): Record<string, Texts> {
  const texts: Record<string, Texts> = {};
  for (const code of settings.languages) {
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

/**
 * The account's default language and the other languages its banner speaks, except those of the
 * default one's language (`de-CH` for `de`, which shows the default texts): those the account's own
 * texts may be translated into.
 */
export async function accountLanguages(db: Executor, accountId: string): Promise<{ language: string; others: string[] }> {
  const row = found(await findBanner(db, accountId));
  const language = row.default_language;
  return { language, others: settingsOf(row).languages.filter((code) => primaryOf(code) !== primaryOf(language)) };
}

/** The settings of an account, or undefined when it is gone: for the public widget. */
export async function findBannerSettings(db: Executor, accountId: string): Promise<BannerSettings | undefined> {
  const row = await findBanner(db, accountId);
  return row && settingsOf(row);
}
