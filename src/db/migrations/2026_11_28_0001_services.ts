import { sql, type Kysely } from 'kysely';

/**
 * Services: the third-party services (vendors) a website uses, each under one of its categories.
 * Their slug is the key meant for a consent's `accepted_services` and `rejected_services` (not checked).
 * Deleting a category leaves its services without one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table services (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      name text not null,
      slug text not null,
      description text not null default '',
      category_id uuid references categories (id) on delete set null,
      company_name text not null default '',
      privacy_policy_url text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index services_account_slug_key on services (account_id, slug);
    create index services_account_created_idx on services (account_id, created_at, id);
    create index services_category_idx on services (category_id) where category_id is not null;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table services`.execute(db);
}
