import { Type, type Static } from 'typebox';
import { BANNER_MODES, LANGUAGE_SOURCES } from '../../../banner/src/config.ts';
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
    regions: Type.Object({
      rules: Type.Array(Type.Object({
        regions: Type.Array(Type.String(), { description: 'Countries (DE) and subdivisions (US-CA): named groups expanded as of now' }),
        mode: StringEnum(BANNER_MODES),
      }), { description: 'In order: the first rule covering the visitor wins' }),
      default_mode: StringEnum(BANNER_MODES, { description: 'For visitors no rule covers, or whose location is not known' }),
      consent_mode: Type.Object({ ads_data_redaction: Type.Boolean(), url_passthrough: Type.Boolean() }),
    }, { description: 'Which mode applies where: GET /widget/{account_id}/region answers the visitor\'s' }),
    texts: Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), {
      description: 'Every text of the banner, complete, by language code: one for each language it speaks',
    }),
    categories: Type.Array(Type.Object({
      id: Type.String(),
      slug: Type.String(),
      name: Type.String(),
      description: Type.String(),
      required: Type.Boolean(),
      sale_or_sharing: Type.Boolean({ description: 'Switched off when the visitor opts out of the sale or sharing of their data' }),
      translations: Translated(['name', 'description']),
      storage_items: Type.Array(BannerItem),
      services: Type.Array(BannerService, { description: "The account's services in this category, named in the banner" }),
    })),
    notice_hash: Type.Optional(Type.String({
      description: 'SHA-256 of the canonical JSON of the fields above: the notice snapshot stored before this configuration was served (GET /api/v1/notices/{hash}); the banner sends it with each consent',
    })),
  }),
});

export const VisitorRegion = Type.Object({
  country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2; null: not known' })),
  region: Nullable(Type.String({ description: 'ISO 3166-2 subdivision (US-CA); null: not known' })),
  mode: StringEnum(BANNER_MODES, { description: "The banner mode the account's rules give there" }),
});
export type VisitorRegion = Static<typeof VisitorRegion>;

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
