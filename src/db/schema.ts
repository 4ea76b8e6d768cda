import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/** A column the database fills on insert; never written on update. */
type CreatedAt = ColumnType<Date, Date | undefined, never>;
type Timestamp = ColumnType<Date, Date | undefined, Date>;
/** jsonb columns are written as JSON text so that both drivers store the same value. */
type Json<T> = ColumnType<T, string, string>;

export type TokenType = 'partner' | 'user' | 'account';
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
  default_language: string;
  /** Facts behind the derived onboarding status. */
  vendors_setup_at: Date | null;
  code_installed_at: Date | null;
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

/** One row per visitor (session) and account: the distinct-visitor facts of the onboarding status. */
export interface AccountVisitorsTable {
  account_id: string;
  session_id: string;
  last_seen_at: Date;
}

export interface Database {
  partners: PartnersTable;
  users: UsersTable;
  groups: GroupsTable;
  accounts: AccountsTable;
  account_users: AccountUsersTable;
  api_tokens: ApiTokensTable;
  account_visitors: AccountVisitorsTable;
}

export type PartnerRow = Selectable<PartnersTable>;
export type UserRow = Selectable<UsersTable>;
export type GroupRow = Selectable<GroupsTable>;
export type AccountRow = Selectable<AccountsTable>;
export type AccountUserRow = Selectable<AccountUsersTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type NewApiToken = Insertable<ApiTokensTable>;
export type AccountUpdate = Updateable<AccountsTable>;
