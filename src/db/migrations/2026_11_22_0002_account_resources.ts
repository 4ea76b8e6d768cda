import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table categories (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      name text not null,
      slug text not null,
      description text not null default '',
      required boolean not null default false,
      default_language text not null default 'en',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index categories_account_slug_key on categories (account_id, slug);
    create index categories_account_created_idx on categories (account_id, created_at, id);
    create index categories_account_updated_idx on categories (account_id, updated_at, id);
    create index categories_account_name_idx on categories (account_id, name, id);

    create table storage_items (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      category_id uuid references categories (id),
      name text not null,
      description text not null default '',
      company_name text not null default '',
      domain text not null default '',
      duration text not null default '',
      path text not null default '/',
      same_site text check (same_site in ('Lax', 'Strict', 'None')),
      partitioned boolean not null default false,
      storage_type text not null default 'cookie' check (storage_type in ('cookie', 'local_storage', 'session_storage')),
      status text not null default 'draft' check (status in ('draft', 'processing', 'in_review', 'finalised')),
      approved_by_type text check (approved_by_type in ('User', 'AI', 'API')),
      is_wildcard_cookie boolean not null default false,
      wildcard_cookie_id uuid references storage_items (id) on delete set null,
      created_by text not null default 'api' check (created_by in ('user', 'api', 'scan')),
      last_seen_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index storage_items_account_created_idx on storage_items (account_id, created_at, id);
    create index storage_items_account_updated_idx on storage_items (account_id, updated_at, id);
    create index storage_items_account_name_idx on storage_items (account_id, name, id);
    create index storage_items_account_seen_idx on storage_items (account_id, last_seen_at, id);
    create index storage_items_category_idx on storage_items (account_id, category_id, created_at, id);
    create index storage_items_status_idx on storage_items (account_id, status, created_at, id);
    create index storage_items_wildcard_idx on storage_items (wildcard_cookie_id);

    create table consents (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      session_id text not null,
      user_id text,
      user_preferences jsonb not null,
      url text,
      user_agent text,
      ip_address text,
      gpc boolean not null default false,
      created_at timestamptz not null default now()
    );
    create index consents_account_created_idx on consents (account_id, created_at, id);
    create index consents_account_session_idx on consents (account_id, session_id, created_at, id);
    create index consents_account_user_idx on consents (account_id, user_id, created_at, id) where user_id is not null;

    create table account_invitations (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      name text not null,
      email text not null,
      role text not null check (role in ('admin', 'member')),
      secret_hash text not null,
      invited_by_type text not null check (invited_by_type in ('account_user', 'API')),
      invited_by_id uuid references users (id) on delete set null,
      expires_at timestamptz not null,
      accepted_at timestamptz,
      deleted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index account_invitations_secret_key on account_invitations (secret_hash);
    create index account_invitations_account_idx on account_invitations (account_id, created_at, id);
    create unique index account_invitations_open_email_key on account_invitations (account_id, lower(email))
      where deleted_at is null and accepted_at is null;

    create table ai_actions (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      action_type text not null check (action_type in ('autofill', 'auto_categorise', 'auto_approve', 'translate')),
      actionable_type text not null check (actionable_type in ('Category', 'StorageItem')),
      actionable_id uuid not null,
      suggested_params jsonb not null default '{}',
      previous_params jsonb not null default '{}',
      confidence real not null check (confidence >= 0 and confidence <= 1),
      source text not null,
      status text not null default 'applied' check (status in ('applied', 'suggested', 'reverted')),
      created_at timestamptz not null default now()
    );
    create index ai_actions_account_created_idx on ai_actions (account_id, created_at, id);
    create index ai_actions_actionable_idx on ai_actions (account_id, actionable_id, created_at, id);

    create table account_daily_stats (
      account_id uuid not null references accounts (id) on delete cascade,
      day date not null,
      pageviews integer not null default 0,
      visitors integer not null default 0,
      primary key (account_id, day)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table account_daily_stats;
    drop table ai_actions;
    drop table account_invitations;
    drop table consents;
    drop table storage_items;
    drop table categories;
  `.execute(db);
}
