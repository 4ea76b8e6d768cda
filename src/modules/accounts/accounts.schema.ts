import { Type, type Static } from 'typebox';
import type { AccountRow } from '../../db/schema.ts';
import { pageQuery } from '../../http/pagination.ts';
import { Name, Nullable, StringEnum, Text, Timestamp } from '../../http/schemas.ts';

export const ONBOARDING_STATUSES = ['account_created', 'vendors_setup', 'code_installed', 'inactive', 'live'] as const;
export type OnboardingStatus = (typeof ONBOARDING_STATUSES)[number];

/** Visitors (distinct session ids) in the last 30 days that make an installed account live. */
export const LIVE_VISITORS = 10;

/**
 * Scheduled rescans: an account whose `scan_schedule` is on gets a scan every 7 (`weekly`) or 30
 * (`monthly`) days, the first one a whole period after the schedule was turned on.
 */
export const SCAN_SCHEDULES = ['off', 'weekly', 'monthly'] as const;

/**
 * What the AI may do on an account, each switch on its own. A new account starts with
 * `NEW_ACCOUNT_AI_FEATURES`; a setting never stored (accounts made before those existed) is off.
 */
export const AiFeaturesSchema = Type.Object({
  autofill: Type.Boolean({ description: 'Fill empty description, company_name and duration from the knowledge' }),
  auto_categorise: Type.Boolean({ description: 'Put uncategorised storage items in a standard category, creating it when missing' }),
  auto_approve: Type.Boolean({ description: 'Finalise what the AI categorised when its confidence reaches the threshold' }),
  auto_approve_threshold: Type.Number({ minimum: 0, maximum: 1, description: 'Confidence from which auto_approve finalises' }),
}, { description: 'What the AI may do on this account' });
export type AiFeatures = Static<typeof AiFeaturesSchema>;

/** Only the settings sent change. */
export const AiFeaturesChanges = Type.Partial(AiFeaturesSchema);
export type AiFeaturesChange = Static<typeof AiFeaturesChanges>;

export const DEFAULT_AI_FEATURES: AiFeatures = {
  autofill: false,
  auto_categorise: false,
  auto_approve: false,
  auto_approve_threshold: 0.95,
};

/**
 * What a new account (made through the API or as the demo) starts with: the AI sorts and describes
 * the items a scan finds, so a new owner has a catalogue to review rather than a list of bare names.
 * Nothing reaches visitors without a person: approval stays manual, and a category the AI creates
 * stays unpublished until an admin publishes it.
 */
export const NEW_ACCOUNT_AI_FEATURES: AiFeaturesChange = { autofill: true, auto_categorise: true };

/** The stored settings over the defaults; unknown stored keys are ignored. */
export function aiFeaturesOf(stored: Record<string, unknown> | null | undefined): AiFeatures {
  const out: AiFeatures = { ...DEFAULT_AI_FEATURES };
  for (const key of Object.keys(DEFAULT_AI_FEATURES) as Array<keyof AiFeatures>) {
    const value = stored?.[key];
    if (typeof value === typeof DEFAULT_AI_FEATURES[key]) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

/** Whether the AI has anything to do on the account's items at all. */
export const aiWorksOnItems = (features: AiFeatures): boolean => features.autofill || features.auto_categorise;

const Status = StringEnum(ONBOARDING_STATUSES);
export const Language = Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$', maxLength: 35 });
const Domain = Text(253, { description: 'Host name of the website, e.g. www.example.com' });

export const AccountSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  domain: Type.String(),
  allowed_domains: Type.Array(Type.String()),
  group_id: Nullable(Type.String()),
  owner_id: Nullable(Type.String()),
  default_language: Type.String(),
  onboarding_status: Status,
  ai_features: AiFeaturesSchema,
  revision: Type.Integer({ description: "The banner's revision: visitors whose choice is older are asked again" }),
  https_only: Type.Boolean({ description: 'The widget answers only pages served over https on the default port (localhost excepted)' }),
  scan_schedule: StringEnum(SCAN_SCHEDULES, { description: 'Scheduled rescans of the website: off, weekly or monthly' }),
  next_scan_at: Nullable(Timestamp),
  consent_retention_days: Type.Integer({ description: 'Consents older than this are removed (30..3650 days)' }),
  demo: Type.Boolean({ description: 'Made by the operator\'s `demo` command: its categories and storage items are examples, not a real site\'s' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Account = Static<typeof AccountSchema>;

const fields = {
  name: Name(),
  // An empty domain is the schema's: reported with the body's other empty or mistyped fields.
  domain: Text(253, { minLength: 1, description: 'Host name of the website, e.g. www.example.com' }),
  group_id: Nullable(Type.String({ maxLength: 64 })),
  default_language: Language,
  allowed_domains: Type.Array(Domain, { maxItems: 50 }),
  ai_features: AiFeaturesChanges,
  https_only: Type.Boolean({ description: 'Only https pages may use the widget; true for new accounts' }),
  scan_schedule: StringEnum(SCAN_SCHEDULES),
  consent_retention_days: Type.Integer({ minimum: 30, maximum: 3650, description: 'Days consents are kept (default 730)' }),
};

export const CreateAccountBody = Type.Object({
  account: Type.Object({
    name: fields.name,
    domain: fields.domain,
    group_id: Type.Optional(fields.group_id),
    default_language: Type.Optional(fields.default_language),
    allowed_domains: Type.Optional(fields.allowed_domains),
    https_only: Type.Optional(fields.https_only),
    consent_retention_days: Type.Optional(fields.consent_retention_days),
    ai_features: Type.Optional(Type.Partial(AiFeaturesSchema, {
      description: 'What the AI may do; a new account has autofill and auto_categorise on, auto_approve off',
    })),
  }),
});
export const UpdateAccountBody = Type.Object({ account: Type.Partial(Type.Object(fields)) });
export type AccountFields = Static<typeof UpdateAccountBody>['account'];

export const AccountListQuery = pageQuery({
  onboarding_status: Type.Optional(Status),
  group_id: Type.Optional(Type.String({ format: 'uuid' })),
  domain: Type.Optional(Type.String({ maxLength: 2048, description: 'Only the accounts of this website (a host or an address: https://www.Example.com/ is www.example.com)' })),
});

export type AccountWithStatus = AccountRow & { onboarding_status: OnboardingStatus };

export function toAccount(row: AccountWithStatus): Account {
  return {
    id: row.id,
    name: row.name,
    domain: row.domain,
    allowed_domains: row.allowed_domains,
    group_id: row.group_id,
    owner_id: row.owner_id,
    default_language: row.default_language,
    onboarding_status: row.onboarding_status,
    ai_features: aiFeaturesOf(row.ai_features),
    revision: row.revision,
    https_only: row.https_only,
    scan_schedule: row.scan_schedule,
    next_scan_at: row.next_scan_at?.toISOString() ?? null,
    consent_retention_days: row.consent_retention_days,
    demo: row.demo,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
