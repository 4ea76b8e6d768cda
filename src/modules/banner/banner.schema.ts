import { Type, type Static, type TSchema } from 'typebox';
import { TEXT_KEYS, type TextKey } from '../../../banner/src/translations.ts';
import { Nullable, StringEnum, Text } from '../../http/schemas.ts';

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
/** Changes to one language's texts: a text to set, or `null` to bring back the built-in words. */
const LanguageTextChanges = Type.Partial(Type.Object(Object.fromEntries(TEXT_KEYS.map((key) => [key, Nullable(Text(2000))])) as
  Record<TextKey, ReturnType<typeof Nullable<ReturnType<typeof Text>>>>));

export const BannerSettingsSchema = Type.Object({
  account_id: Type.String(),
  layout: StringEnum(LAYOUTS),
  position: StringEnum(POSITIONS),
  theme: Type.Object(ThemeFields),
  privacy_policy_url: Nullable(Type.String()),
  show_reject_all: Type.Boolean(),
  consent_expiry_days: Type.Integer(),
  translations: Type.Record(Type.String(), LanguageTexts, { description: 'Texts the account set, by language code' }),
  revision: Type.Integer({ description: 'Visitors whose stored choice has an older revision are asked again' }),
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
  translations: Type.Optional(Type.Record(Type.String({ maxLength: 3 }), Nullable(LanguageTextChanges), {
    maxProperties: 50,
    description: 'By language code: the texts to set (merged with those set before; a text null goes back to the built-in words), or null to drop a language',
  })),
});
export type BannerChanges = Static<typeof BannerChanges>;

export const UpdateBannerBody = Type.Object({ banner: BannerChanges });
export const BannerResponse = Type.Object({ data: BannerSettingsSchema });
