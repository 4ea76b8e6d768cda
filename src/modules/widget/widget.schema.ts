import { Type, type Static } from 'typebox';
import { BANNER_MODES, LANGUAGE_SOURCES } from '../../../banner/src/config.ts';
import { TranslationsSchema } from '../banner/banner.schema.ts';
import { ConsentInput, IDEMPOTENCY_KEY } from '../consents/consents.schema.ts';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';

export const WidgetParams = Type.Object({ account_id: Type.String({ format: 'uuid' }) });
/**
 * The page-view beacon's body: the session of a visitor the banner asked on that page, counted as a
 * visitor for the consent rate. None for a visitor whose choice holds, or where no banner shows.
 */
export const WidgetPageviewBody = Nullable(Type.Object({
  session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'The session the banner asked on this page (a new one on each page until a choice is kept)' })),
}));

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

const TcfRestriction = Type.Object({
  purpose_id: Type.Integer(),
  restriction_type: Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal(2)]),
  vendor_ids: Type.Array(Type.Integer()),
});

/** The TCF block of an account with TCF on (banner/src/config.ts's BannerTcf). */
const WidgetTcf = Type.Object({
  cmp_id: Type.Integer(),
  cmp_version: Type.Integer(),
  publisher_country_code: Type.String(),
  vendor_ids: Type.Array(Type.Integer(), { description: 'The GVL vendors: GET /widget/{account_id}/tcf-vendors.json lists them' }),
  google_atp_ids: Type.Array(Type.Integer()),
  legitimate_interest_purposes: Type.Array(Type.Integer()),
  publisher_restrictions: Type.Array(TcfRestriction),
  gvl_version: Type.Integer({ description: 'The Global Vendor List version in force when the configuration was built' }),
  tcf_policy_version: Type.Integer(),
}, { description: 'IAB TCF settings: only for an account with TCF on' });

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
      opt_in_clocks: Type.Array(Type.String(), {
        description: 'Clocks shown opt-in with no request, as `january/july` UTC offsets in minutes as `Date.getTimezoneOffset()` '
          + 'gives them (`-60/-120`): those clocks, or `*` and the clocks that are not; empty: none',
      }),
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
    tcf: Type.Optional(WidgetTcf),
  }),
});

export const TcfVendorsQuery = Type.Object({
  lang: Type.Optional(Type.String({ maxLength: 35, description: "The visitor's language (de, pt-PT): the purposes' translation loaded for it or its primary language; else English" })),
});

export const VisitorRegion = Type.Object({
  country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2; null: not known' })),
  region: Nullable(Type.String({ description: 'ISO 3166-2 subdivision (US-CA); null: not known' })),
  mode: StringEnum(BANNER_MODES, { description: "The banner mode the account's rules give there" }),
});
export type VisitorRegion = Static<typeof VisitorRegion>;

export const WidgetScriptParams = Type.Object({ account_id: Type.String({ maxLength: 64 }) });

/** A chunk file's content hash, as the banner names it (`gpp.<hash>.js`, banner/paths.ts). */
export const ChunkFileParams = Type.Object({ hash: Type.String({ maxLength: 64 }) });

/** The widget's consent: the API's, plus what only the page knows. */
export const WidgetConsentBody = Type.Object({
  consent: Type.Object({
    ...ConsentInput.properties,
    gpc: Type.Optional(Type.Boolean({ description: 'navigator.globalPrivacyControl was true (also stored when Sec-GPC is absent)' })),
  }),
  idempotency_key: Type.Optional(Type.String({
    ...IDEMPOTENCY_KEY,
    description: 'A random id made once per choice and sent again with it when the answer was lost: within 24 hours the same key for the same '
      + 'account answers the first consent (its id and time) and records nothing. 16 to 128 letters, digits, - or _ (a UUID will do)',
  })),
});

export type WidgetConsentInput = Static<typeof WidgetConsentBody>['consent'];

export const RecordedConsent = Type.Object({ data: Type.Object({ id: Type.String(), created_at: Timestamp }) });
