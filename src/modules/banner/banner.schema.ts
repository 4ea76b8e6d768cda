import { Type, type Static, type TNull, type TSchema, type TString, type TUnion } from 'typebox';
import { LANGUAGE_SOURCES } from '../../../banner/src/config.ts';
import { TEXT_KEYS, type TextKey } from '../../../banner/src/translations.ts';
import { MAX_REGIONAL_RULES, MODES } from '../../geo/regional-rules.ts';
import { Nullable, StringEnum, Text } from '../../http/schemas.ts';
import { MAX_LANGUAGES } from './languages.ts';
import { TcfChangesSchema, TcfSettingsSchema } from '../tcf/tcf.schema.ts';

export const LAYOUTS = ['box', 'bar', 'cloud'] as const;
export const POSITIONS = [
  'top', 'middle', 'bottom',
  'top left', 'top center', 'top right',
  'middle left', 'middle center', 'middle right',
  'bottom left', 'bottom center', 'bottom right',
] as const;

const Colour = Nullable(Type.String({ pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$', description: 'Hex colour, e.g. #1a73e8; null: the default' }));
const ThemeFields = { background: Colour, text: Colour, primary: Colour, primary_text: Colour };

const textFields: Record<string, TSchema> = {};
for (const key of TEXT_KEYS) textFields[key] = Text(2000);
/** One language's texts: only the ones sent replace the built-in words. */
const LanguageTexts = Type.Partial(Type.Object(textFields as Record<TextKey, ReturnType<typeof Text>>));
const LanguageCode = Type.String({ maxLength: 35 });

/** An account's own texts in other languages than its default one, by language code, as answered. */
export function TranslationsSchema<K extends string>(keys: readonly K[], description: string) {
  const texts = Object.fromEntries(keys.map((key) => [key, Type.String()])) as Record<K, TString>;
  return Type.Record(Type.String(), Type.Partial(Type.Object(texts)), { description });
}

/**
 * Changes to them, merged with those stored: by language code, each text to set (null or empty:
 * none), or null to drop the language. `limits`: each text's maximum length.
 */
export function TranslationChangesSchema<K extends string>(limits: Record<K, number>, description: string) {
  const texts = Object.fromEntries(Object.entries<number>(limits).map(([key, max]) => [key, Nullable(Text(max))])) as Record<K, TUnion<[TString, TNull]>>;
  return Type.Record(LanguageCode, Nullable(Type.Partial(Type.Object(texts))), { maxProperties: 50, description });
}

/** The changes to the texts of an item the banner lists (a category, a service, a storage item); `texts` names them. */
export const ItemTranslationChanges = <K extends string>(limits: Record<K, number>, texts: string) => TranslationChangesSchema(limits,
  `${texts} in other languages, by language code: merged with those stored (a text null or empty drops it), or null to drop a language. The banner shows them to visitors of that language`);

const LANGUAGE_SOURCES_DESCRIPTION =
  "Where the banner looks for the visitor's language, in order: browser (the languages the browser asks for), " +
  "page (the page's <html lang>), default (the account's default language). A language counts only when the banner speaks it; " +
  'the default language is the last resort. Default: browser, page, default';

const MODES_DESCRIPTION =
  'opt-in: optional categories off until the visitor chooses; opt-out: on, with a "Do Not Sell or Share" link that switches off ' +
  'the categories marked sale_or_sharing; notice: a dismissable notice, everything on; none: no banner, everything on';
const REGIONS_DESCRIPTION =
  'Countries (ISO 3166-1 alpha-2: DE), subdivisions (ISO 3166-2: US-CA, CA-QC) or named groups: EEA (the EU and IS, LI, NO), ' +
  'EU, US-PRIVACY-STATES (the US states whose comprehensive privacy law is in force). US is the country: every state';
const RULES_DESCRIPTION = `Which mode applies where, in order: the first rule covering the visitor wins (at most ${MAX_REGIONAL_RULES} rules)`;

/** The Consent Mode options: what the banner passes to gtag besides the consent states. */
const ConsentModeFields = {
  ads_data_redaction: Type.Boolean({ description: "gtag('set', 'ads_data_redaction', true): ad click identifiers are redacted while ad_storage is denied" }),
  url_passthrough: Type.Boolean({ description: "gtag('set', 'url_passthrough', true): ad click information passes in links while storage is denied" }),
};

export const BannerSettingsSchema = Type.Object({
  account_id: Type.String(),
  layout: StringEnum(LAYOUTS),
  position: StringEnum(POSITIONS),
  theme: Type.Object(ThemeFields),
  privacy_policy_url: Nullable(Type.String()),
  show_reject_all: Type.Boolean(),
  consent_expiry_days: Type.Integer(),
  translations: Type.Record(Type.String(), LanguageTexts, { description: 'Texts the account set, by language code' }),
  language_sources: Type.Array(StringEnum(LANGUAGE_SOURCES), { description: LANGUAGE_SOURCES_DESCRIPTION }),
  languages: Type.Array(Type.String(), {
    description: "The languages the banner speaks, the account's default language first. Unless the account chose them: every language with built-in words and every one the account wrote texts in",
  }),
  revision: Type.Integer({ description: 'Visitors whose stored choice has an older revision are asked again' }),
  regional_rules: Type.Array(Type.Object({
    regions: Type.Array(Type.String(), { description: REGIONS_DESCRIPTION }),
    mode: StringEnum(MODES, { description: MODES_DESCRIPTION }),
  }), { description: `${RULES_DESCRIPTION}. The shipped defaults while regional_rules_customised is false` }),
  default_mode: StringEnum(MODES, { description: 'The mode for visitors no rule covers, or whose location is not known' }),
  regional_rules_customised: Type.Boolean({
    description: 'The account set its own rules; false: the shipped defaults apply, and follow their updates (a US state law coming into force)',
  }),
  consent_mode: Type.Object(ConsentModeFields, { description: 'Google Consent Mode options' }),
  tcf: TcfSettingsSchema,
});
export type BannerSettings = Static<typeof BannerSettingsSchema>;

export const BannerChanges = Type.Object({
  layout: Type.Optional(StringEnum(LAYOUTS)),
  position: Type.Optional(StringEnum(POSITIONS)),
  theme: Type.Optional(Type.Object(Object.fromEntries(Object.entries(ThemeFields).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof typeof ThemeFields]: ReturnType<typeof Type.Optional<(typeof ThemeFields)[K]>>;
  })),
  privacy_policy_url: Type.Optional(Nullable(Text(2048))),
  show_reject_all: Type.Optional(Type.Boolean()),
  consent_expiry_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 395 })),
  translations: Type.Optional(TranslationChangesSchema(
    Object.fromEntries(TEXT_KEYS.map((key) => [key, 2000])) as Record<TextKey, number>,
    'By language code: the texts to set (merged with those set before; a text null goes back to the built-in words), or null to drop a language',
  )),
  language_sources: Type.Optional(Type.Array(StringEnum(LANGUAGE_SOURCES), {
    minItems: 1, maxItems: LANGUAGE_SOURCES.length, uniqueItems: true, description: LANGUAGE_SOURCES_DESCRIPTION,
  })),
  languages: Type.Optional(Nullable(Type.Array(LanguageCode, {
    minItems: 1, maxItems: MAX_LANGUAGES, uniqueItems: true,
    description: "The languages the banner speaks (the account's default language always among them); null: the default ones",
  }))),
  // Codes and modes are plain strings here: the service names each one that is wrong.
  regional_rules: Type.Optional(Nullable(Type.Array(Type.Object({
    regions: Type.Array(Type.String(), { description: REGIONS_DESCRIPTION }),
    mode: Type.String({ description: `One of ${MODES.join(', ')}. ${MODES_DESCRIPTION}` }),
  }), { description: `${RULES_DESCRIPTION}; they replace the account's rules. null: the shipped defaults` }))),
  default_mode: Type.Optional(Nullable(Type.String({ description: `One of ${MODES.join(', ')}, for visitors no rule covers; null: the shipped default (opt-in)` }))),
  consent_mode: Type.Optional(Nullable(Type.Object(
    Object.fromEntries(Object.entries(ConsentModeFields).map(([key, value]) => [key, Type.Optional(value)])) as {
      [K in keyof typeof ConsentModeFields]: ReturnType<typeof Type.Optional<(typeof ConsentModeFields)[K]>>;
    },
    { description: 'Google Consent Mode options: only those sent change; null: all off' },
  ))),
  tcf: Type.Optional(TcfChangesSchema),
});
export type BannerChanges = Static<typeof BannerChanges>;

export const UpdateBannerBody = Type.Object({ banner: BannerChanges });
export const BannerResponse = Type.Object({ data: BannerSettingsSchema });
