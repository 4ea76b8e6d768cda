import { sql, type Kysely } from 'kysely';

/**
 * Each account's regional rules (which banner mode applies where), the mode for everyone else, and
 * its Google Consent Mode options. Null is "not set": the shipped defaults apply, and follow the
 * project's updates of them (a new US privacy law, a new default), which a copy would not.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts
      add column regional_rules jsonb,
      add column default_mode text,
      add column consent_mode jsonb;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts drop column consent_mode, drop column default_mode, drop column regional_rules`.execute(db);
}
