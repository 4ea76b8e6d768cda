import { Type, type Static } from 'typebox';
import { NOTICE_HASH_PATTERN } from '../notices/notices.schema.ts';
import type { ConsentMode, ConsentRow, NewConsent, RegionalField } from '../../db/schema.ts';
import { MODES } from '../../geo/regional-rules.ts';
import { offsetQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum, Text, Timestamp } from '../../http/schemas.ts';

export const ACCEPT_TYPES = ['all', 'custom', 'necessary'] as const;

const CategoryIds = Type.Array(Text(64), { maxItems: 100 });
/**
 * What a consent's `accepted_services` and `rejected_services` may hold together: each is bounded
 * per key, and this bounds the whole, so that no consent is tens of kilobytes to store, list and export.
 */
export const SERVICES_LIMIT = { names: 1_000, characters: 16_384 };
// A record's keys are not checked by its key schema (it becomes a pattern): `propertyNames` bounds them as the values are.
const ServiceChoices = Type.Record(Text(255), Type.Array(Text(255), { maxItems: 200 }), { maxProperties: 200, propertyNames: { minLength: 1, maxLength: 255 } });

export const UserPreferencesSchema = Type.Object({
  accept_type: StringEnum(ACCEPT_TYPES),
  accepted_categories: CategoryIds,
  rejected_categories: CategoryIds,
  accepted_services: ServiceChoices,
  rejected_services: ServiceChoices,
});

const UserPreferencesInput = Type.Object({
  accept_type: StringEnum(ACCEPT_TYPES),
  accepted_categories: Type.Optional(CategoryIds),
  rejected_categories: Type.Optional(CategoryIds),
  accepted_services: Type.Optional(ServiceChoices),
  rejected_services: Type.Optional(ServiceChoices),
});

/** The banner's modes: how a visitor's region is asked (the mode applied is stored with each consent). */
export const CONSENT_MODES = MODES satisfies readonly ConsentMode[];

/**
 * The longest GPP string taken: it is kept in a first-party cookie (`__gpp`), and a browser keeps
 * a cookie's name and value within 4,096 bytes.
 */
export const GPP_MAX_LENGTH = 4_096;
/** A GPP string's form: base64url sections separated by `~`, each of segments separated by `.`. */
const GPP_PATTERN = '^[A-Za-z0-9_-]+(?:[.~][A-Za-z0-9_-]+)*$';

const MODE_DESCRIPTION = 'The banner mode applied: opt-in (optional categories off until chosen), opt-out (on until the visitor opts out), '
  + 'notice (a dismissable notice), none (no banner); null when not recorded';

/** Where a consent was given, under which mode, and the GPP string sent with it (each optional: null when none). */
const regionalInput = {
  country: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2, in capitals (DE, US)' }))),
  region: Type.Optional(Nullable(Type.String({
    pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$', description: 'ISO 3166-2 subdivision (US-CA); its first two letters are `country`',
  }))),
  mode: Type.Optional(Nullable(StringEnum(CONSENT_MODES, { description: MODE_DESCRIPTION }))),
  gpp_string: Type.Optional(Nullable(Type.String({
    minLength: 1, maxLength: GPP_MAX_LENGTH, pattern: GPP_PATTERN,
    description: 'The IAB Global Privacy Platform string of the choice (base64url sections separated by ~); it must decode',
  }))),
};

/** The same fields as stored: null where none was given. */
export const RegionalSchema = {
  country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2; null when unknown' })),
  region: Nullable(Type.String({ description: 'ISO 3166-2 (US-CA); null when unknown' })),
  mode: Nullable(StringEnum(CONSENT_MODES, { description: MODE_DESCRIPTION })),
  gpp_string: Nullable(Type.String({ description: 'The IAB GPP string sent with the consent; null when none' })),
};

/** The notice the visitor was shown: its snapshot's hash (GET /notices/{hash}). */
const noticeInput = {
  notice_hash: Type.Optional(Nullable(Type.String({
    pattern: NOTICE_HASH_PATTERN,
    description: 'The hash of the notice the visitor was shown (the banner sends its configuration\'s `notice_hash`); it must be one of the account\'s snapshots',
  }))),
};

/** The same as stored: null where none was given. */
export const NoticeSchema = {
  notice_hash: Nullable(Type.String({ description: 'SHA-256 of the notice snapshot the visitor was shown (GET /notices/{hash}); null when not known' })),
};

export const ConsentInput = Type.Object({
  session_id: Type.String({ minLength: 1, maxLength: 128 }),
  user_id: Type.Optional(Nullable(Text(255))),
  user_preferences: UserPreferencesInput,
  url: Type.Optional(Nullable(Text(2048))),
  ...regionalInput,
  ...noticeInput,
});
export type ConsentInput = Static<typeof ConsentInput>;

export const CreateConsentBody = Type.Object({ consent: ConsentInput });

export const ConsentSchema = Type.Object({
  id: Type.String(),
  session_id: Type.String(),
  user_id: Nullable(Type.String()),
  user_preferences: UserPreferencesSchema,
  url: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  ip_address: Nullable(Type.String({ description: 'Masked: IPv4 last octet 0, IPv6 last 80 bits 0' })),
  gpc: Type.Boolean({ description: 'The browser sent Sec-GPC: 1, or the banner reported navigator.globalPrivacyControl' }),
  created_at: Timestamp,
  ...RegionalSchema,
  ...NoticeSchema,
});
export type Consent = Static<typeof ConsentSchema>;

/** One consent with its place in the account's hash chain: what proves it was recorded as shown. */
export const ConsentDetailSchema = Type.Object({
  ...ConsentSchema.properties,
  chain_seq: Type.Integer({ description: "Position in the account's consent chain (1, 2, 3, …)" }),
  hash: Nullable(Type.String({ description: "SHA-256 link of the chain; null for consents stored before the chain existed" })),
  personal_hash: Nullable(Type.String({ description: 'SHA-256 of the salted personal fields; kept after erasure' })),
  erased_at: Nullable(Timestamp),
});

const consentFilters = {
  session_id: Type.Optional(Text(128)),
  user_id: Type.Optional(Text(255)),
  created_after: Type.Optional(Type.String({ format: 'date-time' })),
  created_before: Type.Optional(Type.String({ format: 'date-time' })),
};
export const ConsentListQuery = offsetQuery(['created_at'] as const, consentFilters);
export const ConsentExportQuery = Type.Object({
  format: Type.Optional(StringEnum(['csv', 'ndjson'] as const, { description: 'Default: ndjson' })),
  ...consentFilters,
});
export type ConsentFilters = Pick<Static<typeof ConsentListQuery>, 'session_id' | 'user_id' | 'created_after' | 'created_before'>;

/** A consent's country, region, mode and GPP string as the API shows them: null where none. */
export const regionalOf = (row: Partial<Pick<ConsentRow, RegionalField>>) => ({
  country: row.country ?? null, region: row.region ?? null, mode: row.mode ?? null, gpp_string: row.gpp_string ?? null,
});

/** A consent's notice hash as the API shows it: null where none. */
export const noticeOf = (row: Partial<Pick<ConsentRow, 'notice_hash'>>) => ({ notice_hash: row.notice_hash ?? null });

export function toConsent(row: NewConsent): Consent {
  return {
    id: row.id,
    session_id: row.session_id,
    user_id: row.user_id,
    user_preferences: row.user_preferences,
    url: row.url,
    user_agent: row.user_agent,
    ip_address: row.ip_address,
    gpc: row.gpc,
    created_at: row.created_at.toISOString(),
    ...regionalOf(row),
    ...noticeOf(row),
  };
}

export function toConsentDetail(row: ConsentRow): Static<typeof ConsentDetailSchema> {
  return {
    ...toConsent(row),
    chain_seq: Number(row.chain_seq),
    hash: row.hash,
    personal_hash: row.personal_hash,
    erased_at: row.erased_at?.toISOString() ?? null,
  };
}
