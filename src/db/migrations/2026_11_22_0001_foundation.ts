import { sql, type Kysely } from 'kysely';

const id = (name: string) => sql.raw(`${name} uuid primary key`);

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table partners (
      ${id('id')},
      name text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create table users (
      ${id('id')},
      name text not null,
      email text not null,
      password_hash text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index users_email_key on users (lower(email));
    create table groups (
      ${id('id')},
      partner_id uuid not null references partners (id) on delete cascade,
      name text not null,
      external_id text,
      max_pageviews_per_month integer,
      max_unique_visitors_per_month integer,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index groups_partner_external_id_key on groups (partner_id, external_id);
    create index groups_partner_created_idx on groups (partner_id, created_at, id);
    create table accounts (
      ${id('id')},
      name text not null,
      domain text not null,
      allowed_domains jsonb not null default '[]',
      group_id uuid references groups (id),
      owner_id uuid references users (id) on delete set null,
      default_language text not null default 'en',
      vendors_setup_at timestamptz,
      code_installed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index accounts_group_created_idx on accounts (group_id, created_at, id);
    create table account_users (
      ${id('id')},
      account_id uuid not null references accounts (id) on delete cascade,
      user_id uuid not null references users (id) on delete cascade,
      admin boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index account_users_account_user_key on account_users (account_id, user_id);
    create index account_users_user_idx on account_users (user_id, account_id);
    create table api_tokens (
      ${id('id')},
      token_hash text not null,
      token_hint text not null,
      token_type text not null check (token_type in ('partner', 'user', 'account')),
      kind text not null check (kind in ('session', 'api')),
      name text,
      partner_id uuid references partners (id) on delete cascade,
      user_id uuid references users (id) on delete cascade,
      account_id uuid references accounts (id) on delete cascade,
      expires_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz not null default now()
    );
    create unique index api_tokens_hash_key on api_tokens (token_hash);
    create index api_tokens_partner_idx on api_tokens (partner_id, created_at, id);
    create index api_tokens_user_idx on api_tokens (user_id, created_at, id);
    create index api_tokens_account_idx on api_tokens (account_id);
    create table account_visitors (
      account_id uuid not null references accounts (id) on delete cascade,
      session_id text not null,
      last_seen_at timestamptz not null default now(),
      primary key (account_id, session_id)
    );
    create index account_visitors_recent_idx on account_visitors (account_id, last_seen_at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table account_visitors;
    drop table api_tokens;
    drop table account_users;
    drop table accounts;
    drop table groups;
    drop table users;
    drop table partners;
  `.execute(db);
}
