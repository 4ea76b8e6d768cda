import { sql, type Kysely } from 'kysely';

/**
 * A consent row in about half the bytes (issue #19: 585 bytes of heap per consent, 275 of them the
 * preferences document and 163 the three hex texts):
 * - the preferences as columns: the accept type, the category ids as `uuid[]` (16 bytes an id
 *   instead of a 40-byte JSON string), the services as JSON only when there are any; an empty list
 *   or map is stored as null;
 * - the chain's hashes and the salt as `bytea` (32 and 16 bytes instead of 64 and 32 hex digits);
 * - the session index as a hash index of the account id and the session id written as one text
 *   (a 4-byte hash code an entry instead of a 16-byte account id and an 8-byte hash, in pages a
 *   random key leaves about a third empty): a session is only ever looked up by equality.
 * The API's shape is unchanged: the repository puts the document back together, and the chain's
 * hashes are computed over that document exactly as before, so every stored link still verifies.
 * Changing a column's type rewrites the table: the space of the old document and of the rows the
 * update replaced is given back in the same migration (the session index is built after it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index consents_account_session_hash_idx;
    alter table consents
      add column accept_type text,
      add column accepted_categories uuid[],
      add column rejected_categories uuid[],
      add column accepted_services jsonb,
      add column rejected_services jsonb;
    update consents set
      accept_type = user_preferences->>'accept_type',
      accepted_categories = nullif(array(select jsonb_array_elements_text(user_preferences->'accepted_categories'))::uuid[], '{}'),
      rejected_categories = nullif(array(select jsonb_array_elements_text(user_preferences->'rejected_categories'))::uuid[], '{}'),
      accepted_services = nullif(user_preferences->'accepted_services', '{}'::jsonb),
      rejected_services = nullif(user_preferences->'rejected_services', '{}'::jsonb);
    alter table consents
      drop column user_preferences,
      alter column accept_type set not null,
      add constraint consents_accept_type_check check (accept_type in ('all', 'custom', 'necessary')),
      alter column hash type bytea using decode(hash, 'hex'),
      alter column personal_hash type bytea using decode(personal_hash, 'hex'),
      alter column personal_salt type bytea using decode(personal_salt, 'hex');
    create index consents_account_session_idx on consents using hash ((account_id::text || session_id));
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table consents add column user_preferences jsonb;
    update consents set user_preferences = jsonb_build_object(
      'accept_type', accept_type,
      'accepted_categories', to_jsonb(coalesce(accepted_categories, '{}')::text[]),
      'rejected_categories', to_jsonb(coalesce(rejected_categories, '{}')::text[]),
      'accepted_services', coalesce(accepted_services, '{}'::jsonb),
      'rejected_services', coalesce(rejected_services, '{}'::jsonb));
    alter table consents
      alter column user_preferences set not null,
      drop constraint consents_accept_type_check,
      drop column accept_type, drop column accepted_categories, drop column rejected_categories,
      drop column accepted_services, drop column rejected_services,
      alter column hash type text using encode(hash, 'hex'),
      alter column personal_hash type text using encode(personal_hash, 'hex'),
      alter column personal_salt type text using encode(personal_salt, 'hex');
    drop index consents_account_session_idx;
    create index consents_account_session_hash_idx on consents (account_id, (hashtextextended(session_id, 0)));
  `.execute(db);
}
