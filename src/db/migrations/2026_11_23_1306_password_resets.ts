import { sql, type Kysely } from 'kysely';

/**
 * Password reset links: only the SHA-256 of each link's secret is stored, with its expiry and the
 * moment it was used, so that a copy of the database cannot reset anyone's password.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table password_resets (
      id uuid primary key,
      user_id uuid not null references users (id) on delete cascade,
      token_hash text not null,
      expires_at timestamptz not null,
      used_at timestamptz,
      created_at timestamptz not null default now()
    );
    create unique index password_resets_token_hash_key on password_resets (token_hash);
    create index password_resets_user_idx on password_resets (user_id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table password_resets`.execute(db);
}
