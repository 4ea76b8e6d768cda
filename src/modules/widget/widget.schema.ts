import { Type, type Static } from 'typebox';
import { LANGUAGE_SOURCES } from '../../../banner/src/config.ts';
import { TranslationsSchema } from '../banner/banner.schema.ts';
import { ConsentInput } from '../consents/consents.schema.ts';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';

export const WidgetParams = Type.Object({ account_id: Type.String({ format: 'uuid' }) });
export const WidgetConfigQuery = Type.Object({
  session_id: Type.Optional(Type.String({ maxLength: 128, description: 'Counts this visitor for the account' })),
});

/** The account's own words in the languages the banner speaks. */
const Translated = <K extends string>(keys: readonly K[]) =>
  TranslationsSchema(keys, "The account's own words in the languages the banner speaks, by language code (a region's completed from its language's)");

const BannerItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  domain: Type.String(),
  duration: Type.String(),
  description: Type.String(),
  company_name: Type.String(),
  storage_type: StringEnum(['cookie', 'local_storage', 'session_storage'] as const),
  is_wildcard_cookie: Type.Boolean(),
  translations: Translated(['description', 'duration']),
});

const BannerService = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  company_name: Type.String(),
  privacy_policy_url: Nullable(Type.String()),
  translations: Translated(['name', 'description']),
});

const Theme = Type.Object({
  background: Nullable(Type.String()),
  text: Nullable(Type.String()),
  primary: Nullable(Type.String()),
  primary_text: Nullable(Type.String()),
});

export const WidgetConfig = Type.Object({
  data: Type.Object({
    account: Type.Object({ id: Type.String(), name: Type.String(), default_language: Type.String() }),
    revision: Type.Integer({ description: 'A stored choice of an older revision is asked again' }),
    banner: Type.Object({
      layout: Type.String(),
      position: Type.String(),
      theme: Theme,
      privacy_policy_url: Nullable(Type.String()),
      show_reject_all: Type.Boolean(),
      consent_expiry_days: Type.Integer(),
      language_sources: Type.Array(StringEnum(LANGUAGE_SOURCES), { description: "Where the banner looks for the visitor's language, in order" }),
    }),
    texts: Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), {
      description: 'Every text of the banner, complete, by language code: one for each language it speaks',
    }),
    categories: Type.Array(Type.Object({
      id: Type.String(),
      slug: Type.String(),
      name: Type.String(),
      description: Type.String(),
      required: Type.Boolean(),
      translations: Translated(['name', 'description']),
      storage_items: Type.Array(BannerItem),
      services: Type.Array(BannerService, { description: "The account's services in this category, named in the banner" }),
    })),
  }),
});

export const WidgetScriptParams = Type.Object({ account_id: Type.String({ maxLength: 64 }) });

/** The GPP file's content hash, as the banner names it (`gpp.<hash>.js`). */
export const GppFileParams = Type.Object({ hash: Type.String({ maxLength: 64 }) });

/** The widget's consent: the API's, plus what only the page knows. */
export const WidgetConsentBody = Type.Object({
  consent: Type.Object({
    ...ConsentInput.properties,
    gpc: Type.Optional(Type.Boolean({ description: 'navigator.globalPrivacyControl was true (also stored when Sec-GPC is absent)' })),
  }),
});

export type WidgetConsentInput = Static<typeof WidgetConsentBody>['consent'];

export const RecordedConsent = Type.Object({ data: Type.Object({ id: Type.String(), created_at: Timestamp }) });
