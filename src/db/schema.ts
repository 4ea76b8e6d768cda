import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';
import type { TokenType } from '../lib/token-secret.ts';

/** A column the database fills on insert; never written on update. */
type CreatedAt = ColumnType<Date, Date | undefined, never>;
type Timestamp = ColumnType<Date, Date | undefined, Date>;
/** jsonb columns are written as JSON text so that both drivers store the same value. */
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;

/** A text of the account's own in another language: by language code, what it says there. */
export type TextTranslations<K extends string = 'name' | 'description'> = Record<string, Partial<Record<K, string>>>;
type TranslationsColumn<K extends string = 'name' | 'description'> = ColumnType<TextTranslations<K>, string | undefined, string>;

export type { TokenType } from '../lib/token-secret.ts';
export type TokenKind = 'session' | 'api';

export interface PartnersTable {
  id: string;
  name: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: string;
  name: string;
  email: string;
  password_hash: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface GroupsTable {
  id: string;
  partner_id: string;
  name: string;
  external_id: string | null;
  max_pageviews_per_month: number | null;
  max_unique_visitors_per_month: number | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AccountsTable {
  id: string;
  name: string;
  domain: string;
  allowed_domains: Json<string[]>;
  group_id: string | null;
  owner_id: string | null;
  default_language: ColumnType<string, string | undefined, string>;
  /** Facts behind the derived onboarding status. */
  vendors_setup_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  code_installed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Only the AI settings the account has set; `aiFeaturesOf` (accounts.schema.ts) fills in the defaults. */
  ai_features: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** Only the banner settings the account has set; `src/modules/banner/banner.settings.ts` fills in the defaults. */
  banner: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** Goes up when a category is added or removed, or on request: visitors are asked again. */
  revision: ColumnType<number, number | undefined, number>;
  /** Which banner mode applies where (`src/geo/regional-rules.ts`), first match wins; null: the shipped defaults. */
  regional_rules: ColumnType<StoredRegionalRule[] | null, string | null | undefined, string | null>;
  /** The mode for visitors no rule covers; null: the shipped default. */
  default_mode: ColumnType<string | null, string | null | undefined, string | null>;
  /** Google Consent Mode options the banner passes on; null: all off. */
  consent_mode: ColumnType<StoredConsentMode | null, string | null | undefined, string | null>;
  /** The widget answers only https pages on the default port (localhost excepted). */
  https_only: ColumnType<boolean, boolean | undefined, boolean>;
  /** Consents older than this many days are removed by the retention job (30..3650). */
  consent_retention_days: ColumnType<number, number | undefined, number>;
  scan_schedule: ColumnType<ScanSchedule, ScanSchedule | undefined, ScanSchedule>;
  /** When the scheduler queues the next scan; null while the schedule is off. */
  next_scan_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Made by the `demo` command: its catalogue is an example. */
  demo: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export type ScanSchedule = 'off' | 'weekly' | 'monthly';

/** A regional rule as stored: checked and canonical when written (`parseRegionalRules`). */
export interface StoredRegionalRule {
  regions: string[];
  mode: string;
}

/** Only the Consent Mode options the account set. */
export type StoredConsentMode = Partial<Record<'ads_data_redaction' | 'url_passthrough', boolean>>;
export type ScanStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

export interface ScansTable {
  id: string;
  account_id: string;
  /** The user or partner the scan counts against (see the migration `scan_owners`): fairness and limits. */
  owner_id: string;
  status: ColumnType<ScanStatus, ScanStatus | undefined, ScanStatus>;
  scheduled: ColumnType<boolean, boolean | undefined, boolean>;
  starting_url: string;
  max_pages: number;
  crawl_subdomains: ColumnType<boolean, boolean | undefined, boolean>;
  pages_scanned: ColumnType<number, number | undefined, number>;
  storage_items_found: ColumnType<number, number | undefined, number>;
  new_storage_items: ColumnType<number, number | undefined, number>;
  report: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  error: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  /** The instance running it, and until when its claim holds unless renewed. */
  locked_by: string | null;
  lease_until: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface AccountUsersTable {
  id: string;
  account_id: string;
  user_id: string;
  admin: boolean;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ApiTokensTable {
  id: string;
  /** SHA-256 of the whole token, hex. The secret itself is never stored. */
  token_hash: string;
  token_hint: string;
  token_type: TokenType;
  kind: TokenKind;
  name: string | null;
  /** Partner tokens: the partner. Account tokens created by a partner: that partner. */
  partner_id: string | null;
  /** User tokens: the user. Account tokens created by a user: that user. */
  user_id: string | null;
  /** Account tokens: the account they act on. */
  account_id: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: CreatedAt;
}

/** An account's most recently seen sessions (at most LIVE_VISITORS): the onboarding status's visitor fact. */
export interface AccountRecentVisitorsTable {
  account_id: string;
  session_id: string;
  last_seen_at: Date;
}

export interface CategoriesTable {
  id: string;
  account_id: string;
  name: string;
  slug: string;
  description: ColumnType<string, string | undefined, string>;
  required: ColumnType<boolean, boolean | undefined, boolean>;
  /** Shown in the banner. Categories the AI creates start unpublished unless the account auto-approves. */
  published: ColumnType<boolean, boolean | undefined, boolean>;
  /** Opting out of the sale or sharing of personal data (US state laws) switches it off. */
  sale_or_sharing: ColumnType<boolean, boolean | undefined, boolean>;
  default_language: string;
  /** Name and description in other languages than `default_language`. */
  translations: TranslationsColumn;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface ServicesTable {
  id: string;
  account_id: string;
  name: string;
  /** Unique in the account: the key meant for a consent's `accepted_services` and `rejected_services`. */
  slug: string;
  description: ColumnType<string, string | undefined, string>;
  category_id: ColumnType<string | null, string | null | undefined, string | null>;
  company_name: ColumnType<string, string | undefined, string>;
  privacy_policy_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** Name and description in other languages than the account's. */
  translations: TranslationsColumn;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export type SameSite = 'Lax' | 'Strict' | 'None';
export type StorageType = 'cookie' | 'local_storage' | 'session_storage';
export type StorageItemStatus = 'draft' | 'processing' | 'in_review' | 'finalised';
export type ApprovedByType = 'User' | 'AI' | 'API';
export type CreatedBy = 'user' | 'api' | 'scan';

/** What of a storage item is said in words, and so in a language. */
export type ItemText = 'description' | 'duration';

export interface StorageItemsTable {
  id: string;
  account_id: string;
  category_id: string | null;
  name: string;
  description: ColumnType<string, string | undefined, string>;
  company_name: ColumnType<string, string | undefined, string>;
  domain: ColumnType<string, string | undefined, string>;
  duration: ColumnType<string, string | undefined, string>;
  path: ColumnType<string, string | undefined, string>;
  same_site: SameSite | null;
  partitioned: ColumnType<boolean, boolean | undefined, boolean>;
  storage_type: ColumnType<StorageType, StorageType | undefined, StorageType>;
  status: ColumnType<StorageItemStatus, StorageItemStatus | undefined, StorageItemStatus>;
  approved_by_type: ApprovedByType | null;
  is_wildcard_cookie: ColumnType<boolean, boolean | undefined, boolean>;
  wildcard_cookie_id: string | null;
  created_by: ColumnType<CreatedBy, CreatedBy | undefined, CreatedBy>;
  last_seen_at: Date | null;
  /** The script or response a scan saw write it (a URL); null when made by hand or not told. Not shown by the API. */
  set_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** Description and duration in other languages than the account's (the name is the cookie's own). */
  translations: TranslationsColumn<ItemText>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface UserPreferences {
  accept_type: 'all' | 'custom' | 'necessary';
  accepted_categories: string[];
  rejected_categories: string[];
  accepted_services: Record<string, string[]>;
  rejected_services: Record<string, string[]>;
}

/**
 * A consent as stored: its category and service lists in `consent_choices` (`choice_id`; null when
 * all four are empty), the chain's hashes as bytes. Read through `consent_records`.
 */
export interface ConsentsTable {
  id: string;
  account_id: string;
  session_id: string;
  user_id: string | null;
  accept_type: UserPreferences['accept_type'];
  choice_id: ColumnType<string | null, string | null | undefined, never>;
  url: string | null;
  user_agent: string | null;
  /** Masked before storage: IPv4 last octet 0, IPv6 last 80 bits 0. */
  ip_address: string | null;
  gpc: boolean;
  created_at: CreatedAt;
  /** The consent's place in its account's hash chain (1, 2, …); negative for a row written around the writer. */
  chain_seq: ColumnType<number, number | undefined, never>;
  /** SHA-256 of the previous link and this consent; null for consents older than the chain. */
  hash: Uint8Array | null;
  /** SHA-256 of the salted personal fields: what the chain covers of them, so they can be erased. */
  personal_hash: Uint8Array | null;
  /** Random salt of personal_hash; dropped by erasure, so that the hash no longer tells anything. */
  personal_salt: Uint8Array | null;
  erased_at: Date | null;
  /** Where the consent was given (ISO 3166-1 alpha-2); null when unknown. */
  country: ColumnType<string | null, string | null | undefined, never>;
  /** The subdivision (ISO 3166-2, `US-CA`); null when unknown. */
  region: ColumnType<string | null, string | null | undefined, never>;
  /** The banner's mode applied; null for consents recorded before it was kept, or sent without one. */
  mode: ColumnType<ConsentMode | null, ConsentMode | null | undefined, never>;
  /** The IAB GPP string sent with the consent; null when none. */
  gpp_string: ColumnType<string | null, string | null | undefined, never>;
  /** The notice snapshot the visitor was shown (`notice_snapshots.hash`); null when not known. */
  notice_hash: ColumnType<string | null, string | null | undefined, never>;
  /** The IAB TCF TC string of the choice; null when none. */
  tc_string: ColumnType<string | null, string | null | undefined, never>;
  /** Google's Additional Consent string of the choice; null when none. */
  ac_string: ColumnType<string | null, string | null | undefined, never>;
}

/** A consent's fields of where and under which mode it was given, and its GPP string: absent is null. */
export type RegionalField = 'country' | 'region' | 'mode' | 'gpp_string' | TcfField;
/** A consent's TCF signals (issue 47): absent is null. */
export type TcfField = 'tc_string' | 'ac_string';

/** How a banner treats a visitor's region: opt-in (today's banner), opt-out, a notice, or none. */
export type ConsentMode = 'opt-in' | 'opt-out' | 'notice' | 'none';

/** One account's distinct choice of lists, shared by its consents; `digest`: SHA-256 of the lists as one jsonb array. */
export interface ConsentChoicesTable {
  id: ColumnType<string, never, never>;
  account_id: string;
  digest: Uint8Array;
  accepted_categories: string[] | null;
  rejected_categories: string[] | null;
  accepted_services: NullableJson<Record<string, string[]>>;
  rejected_services: NullableJson<Record<string, string[]>>;
  /** The lists' size as text (service maps as JSON, 37 bytes a category id), computed by PostgreSQL. */
  text_bytes: ColumnType<number, never, never>;
  /** How many categories both lists name, computed by PostgreSQL. */
  category_count: ColumnType<number, never, never>;
}

/** The view `consent_records`: a stored consent with its choice's lists (an empty list or map is null). */
export interface ConsentRecordsView extends Omit<ConsentsTable, 'choice_id'>, Omit<ConsentChoicesTable, 'id' | 'account_id' | 'digest' | 'text_bytes' | 'category_count'> {
  /** The choice's `text_bytes` and `category_count`; null for a consent with no choice. */
  choice_bytes: number | null;
  choice_categories: number | null;
}

/** A consent as the API and the chain see it: its preferences as one document, its hashes in hex. */
export interface ConsentRow {
  id: string;
  account_id: string;
  session_id: string;
  user_id: string | null;
  user_preferences: UserPreferences;
  url: string | null;
  user_agent: string | null;
  ip_address: string | null;
  gpc: boolean;
  created_at: Date;
  chain_seq: number;
  hash: string | null;
  personal_hash: string | null;
  personal_salt: string | null;
  erased_at: Date | null;
  country: string | null;
  region: string | null;
  mode: ConsentMode | null;
  gpp_string: string | null;
  notice_hash: string | null;
  tc_string: string | null;
  ac_string: string | null;
}

/** A consent's fields that only some consents carry, hashed into the chain only when set: absent is null. */
export type OptionalProofField = RegionalField | 'notice_hash';

/** A consent as recorded, before the writer chains it; also what a list shows of one. */
export type NewConsent = Omit<ConsentRow, 'chain_seq' | 'hash' | 'personal_hash' | 'personal_salt' | 'erased_at' | OptionalProofField>
  & Partial<Pick<ConsentRow, OptionalProofField>>
  // The client's key for this consent (stored beside it, not in it: consent_idempotency_keys).
  & { idempotency_key?: string | null };

/** One change of an account's configuration: who, when, what, and the fields before and after (no secrets). */
export interface AuditLogTable {
  id: string;
  account_id: string;
  actor_type: 'user' | 'token' | 'partner' | 'ai' | 'system';
  actor_id: string | null;
  resource_type: string;
  resource_id: string | null;
  action: string;
  before: NullableJson<unknown>;
  after: NullableJson<unknown>;
  created_at: CreatedAt;
}
export type NewAuditEntry = Insertable<AuditLogTable>;
export type AuditEntryRow = Selectable<AuditLogTable>;

/** One public banner configuration an account served, stored once per content hash; never updated. */
export interface NoticeSnapshotsTable {
  account_id: string;
  /** SHA-256 (hex) of `content`. */
  hash: string;
  /** The configuration as canonical JSON (keys sorted, no whitespace): exactly what was hashed. */
  content: string;
  created_at: CreatedAt;
}

export type InvitationRole = 'admin' | 'member';

export interface AccountInvitationsTable {
  id: string;
  account_id: string;
  name: string;
  email: string;
  role: InvitationRole;
  /** SHA-256 of the secret in the invite URL. */
  secret_hash: string;
  invited_by_type: 'account_user' | 'API';
  invited_by_id: string | null;
  expires_at: Date;
  accepted_at: Date | null;
  deleted_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** Null for invitations made before the email's fate was tracked. */
  email_status: ColumnType<InvitationEmailStatus | null, InvitationEmailStatus | null | undefined, InvitationEmailStatus | null>;
  /** When the last email was sent: at most one per hour per invitation (so per address and account). */
  email_sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Sends tried for the current link (the first one and the retries). */
  email_attempts: ColumnType<number, number | undefined, number>;
  /** When a failed email is tried again. */
  email_retry_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export type InvitationEmailStatus = 'sent' | 'failed' | 'not_configured';

export type AiActionType = 'autofill' | 'auto_categorise' | 'auto_approve' | 'translate';
export type ActionableType = 'Category' | 'StorageItem';
export type AiActionStatus = 'applied' | 'suggested' | 'reverted' | 'rejected';

export interface AiActionsTable {
  id: string;
  account_id: string;
  action_type: AiActionType;
  actionable_type: ActionableType;
  actionable_id: string;
  suggested_params: Json<Record<string, unknown>>;
  previous_params: Json<Record<string, unknown>>;
  confidence: number;
  source: string;
  status: ColumnType<AiActionStatus, AiActionStatus | undefined, AiActionStatus>;
  created_at: CreatedAt;
}

export interface AccountDailyStatsTable {
  account_id: string;
  day: ColumnType<Date, string, string>;
  pageviews: number;
  visitors: number;
  /** The day's visitors who chose (a consent recorded for their session), counted from the day's sketch as `visitors` is. */
  choosers: ColumnType<number, number | undefined, number>;
}

export interface AccountConsentCountsTable {
  account_id: string;
  consents: ColumnType<number, number, number>;
}

/** A password reset link: only its secret's SHA-256 is kept; `used_at` makes it single-use. */
export interface PasswordResetsTable {
  id: string;
  user_id: string;
  token_hash: string;
  expires_at: Date;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: CreatedAt;
}

export interface ConsentChainHeadsTable {
  account_id: string;
  seq: number;
  hash: string;
}

/** A recent consent's idempotency key (the widget's `idempotency_key`, the API's `Idempotency-Key`). */
export interface ConsentIdempotencyKeysTable {
  account_id: string;
  key: string;
  consent_id: string;
  created_at: Date;
}

export interface ConsentChainAnchorsTable {
  account_id: string;
  seq: number;
  hash: string;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** Consents per account and UTC day, and the chain's last link of that day (the daily checkpoint). */
export interface ConsentDailyStatsTable {
  account_id: string;
  day: ColumnType<Date, string, string>;
  consents: number;
  accept_all: number;
  accept_custom: number;
  accept_necessary: number;
  gpc: number;
  head_seq: number;
  head_id: string | null;
  head_hash: string | null;
  /** How many of the day's consents retention has removed since: the table holds `consents - removed`. */
  removed: ColumnType<number, number | undefined, number>;
}

/** Consents per account and UTC hour (`hour` is its start), for the ends of a listing's time window. */
export interface ConsentHourlyCountsTable {
  account_id: string;
  hour: Date;
  consents: number;
  /** How many of the hour's consents retention has removed since. */
  removed: ColumnType<number, number | undefined, number>;
}

export interface ConsentDailyCategoriesTable {
  account_id: string;
  day: ColumnType<Date, string, string>;
  category_id: string;
  accepted: number;
  rejected: number;
}

/**
 * Consents per account, UTC day, country and mode, by accept type; `opt_outs`: those in `opt-out`
 * mode that rejected a category. `''` for an unknown country or an unrecorded mode.
 */
export interface ConsentDailyCountryModesTable {
  account_id: string;
  day: ColumnType<Date, string, string>;
  country: string;
  mode: ConsentMode | '';
  consents: number;
  accept_all: number;
  accept_custom: number;
  accept_necessary: number;
  opt_outs: number;
  gpc: number;
}

/** A HyperLogLog of the distinct visitors of an account in a UTC day, ISO week or month (named by its first day). */
/** Per account, day and TCF purpose (0: the TC strings themselves): consents given, legitimate interests standing. */
export interface ConsentDailyTcfPurposesTable {
  account_id: string;
  day: ColumnType<Date, string, string>;
  purpose: number;
  consents: number;
  legitimate_interests: number;
}

export interface AccountVisitorSketchesTable {
  account_id: string;
  grain: 'day' | 'week' | 'month';
  start: ColumnType<Date, string, string>;
  /** Every visitor of the period: the sessions shown the banner, and every chooser. */
  registers: Uint8Array;
  /** The visitors who chose (a consent recorded for their session): always contained in `registers`. */
  chooser_registers: ColumnType<Uint8Array, Uint8Array | undefined, Uint8Array>;
}

export interface ConsentErasuresTable {
  id: string;
  account_id: string;
  subject_type: 'user_id' | 'session_id';
  /** SHA-256 of the erased identifier: the log tells what was erased without keeping it. */
  subject_hash: string;
  consents: number;
  erased_by_type: string;
  erased_by_id: string | null;
  created_at: CreatedAt;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'parked';

/** An endpoint of an account's webhooks (see the migration `webhooks`). */
export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  description: ColumnType<string, string | undefined, string>;
  events: string[];
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** `whsec_` and base64 of the key: kept as it is, since every delivery is signed with it. */
  secret: string;
  /** Why the service disabled it (failing for too long); null when enabled or disabled by a person. */
  disabled_reason: string | null;
  /** Since when every attempt failed; null after a success. */
  failing_since: Date | null;
  /** When recorded consents were last gathered into a delivery to it (at most once a second). */
  consents_sent_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** One event's delivery to one endpoint: the outbox and the delivery log in one. */
export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  endpoint_id: string;
  event: string;
  /** The body exactly as signed and sent. */
  payload: string;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Date;
  /** Past it a failed delivery is parked; set at its first failure (or by "send again"). */
  retry_until: Date | null;
  claimed_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** Consents recorded for accounts with a `consent.recorded` webhook, waiting to be gathered. */
export interface WebhookConsentQueueTable {
  account_id: string;
  consent_id: string;
  created_at: CreatedAt;
}

/** One version of the IAB's Global Vendor List (GVL v3), for every tenant; the highest is in force. */
export interface TcfVendorListsTable {
  version: number;
  tcf_policy_version: number;
  last_updated: Date;
  /** `vendor-list.json` as loaded. */
  vendor_list: Json<Record<string, unknown>>;
  /** The declarations of `purposes-xx.json` (purposes, features, stacks, data categories), by language code. */
  translations: ColumnType<Record<string, Record<string, unknown>>, string | undefined, string>;
  fetched_at: CreatedAt;
  /** Moves when translations are merged into the version. */
  updated_at: Timestamp;
}

export interface Database {
  partners: PartnersTable;
  users: UsersTable;
  groups: GroupsTable;
  accounts: AccountsTable;
  account_users: AccountUsersTable;
  api_tokens: ApiTokensTable;
  account_recent_visitors: AccountRecentVisitorsTable;
  categories: CategoriesTable;
  services: ServicesTable;
  storage_items: StorageItemsTable;
  consents: ConsentsTable;
  consent_choices: ConsentChoicesTable;
  consent_records: ConsentRecordsView;
  account_invitations: AccountInvitationsTable;
  ai_actions: AiActionsTable;
  account_daily_stats: AccountDailyStatsTable;
  account_consent_counts: AccountConsentCountsTable;
  password_resets: PasswordResetsTable;
  scans: ScansTable;
  consent_chain_heads: ConsentChainHeadsTable;
  consent_chain_anchors: ConsentChainAnchorsTable;
  consent_idempotency_keys: ConsentIdempotencyKeysTable;
  consent_daily_stats: ConsentDailyStatsTable;
  consent_daily_categories: ConsentDailyCategoriesTable;
  consent_hourly_counts: ConsentHourlyCountsTable;
  consent_daily_country_modes: ConsentDailyCountryModesTable;
  consent_daily_tcf_purposes: ConsentDailyTcfPurposesTable;
  account_visitor_sketches: AccountVisitorSketchesTable;
  consent_erasures: ConsentErasuresTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_consent_queue: WebhookConsentQueueTable;
  notice_snapshots: NoticeSnapshotsTable;
  audit_log: AuditLogTable;
  tcf_vendor_lists: TcfVendorListsTable;
}

export type PartnerRow = Selectable<PartnersTable>;
export type UserRow = Selectable<UsersTable>;
export type GroupRow = Selectable<GroupsTable>;
export type AccountRow = Selectable<AccountsTable>;
export type AccountUserRow = Selectable<AccountUsersTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type NewApiToken = Insertable<ApiTokensTable>;
export type AccountUpdate = Updateable<AccountsTable>;
export type CategoryRow = Selectable<CategoriesTable>;
export type ServiceRow = Selectable<ServicesTable>;
export type StorageItemRow = Selectable<StorageItemsTable>;
export type AccountInvitationRow = Selectable<AccountInvitationsTable>;
export type AiActionRow = Selectable<AiActionsTable>;
export type PasswordResetRow = Selectable<PasswordResetsTable>;
export type ScanRow = Selectable<ScansTable>;
export type ConsentErasureRow = Selectable<ConsentErasuresTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
