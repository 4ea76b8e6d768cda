import { sql, type Kysely } from 'kysely';

/**
 * Webhooks: each account's endpoints, and the outbox of deliveries to them. A delivery row is
 * written in the transaction of the event it tells of (a scan finishing, an item discovered, an AI
 * action, an erasure), so that an event is never told without having happened nor lost once it has;
 * a worker sends the `pending` ones, claiming them with `claimed_until` (an atomic update, safe with
 * several instances), and retries with backoff until `retry_until`, then parks them.
 * Recorded consents are queued one row each in `webhook_consent_queue` by the consent writer's own
 * statement (same commit) and gathered into one delivery per endpoint at most once a second.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_endpoints (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      url text not null,
      description text not null default '',
      events text[] not null,
      enabled boolean not null default true,
      secret text not null,
      disabled_reason text,
      failing_since timestamptz,
      consents_sent_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index webhook_endpoints_account_idx on webhook_endpoints (account_id, created_at, id);

    create table webhook_deliveries (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
      event text not null,
      payload text not null,
      status text not null default 'pending' check (status in ('pending', 'delivered', 'parked')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      retry_until timestamptz,
      claimed_until timestamptz,
      last_status_code integer,
      last_error text,
      delivered_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at, id);
    create index webhook_deliveries_due_idx on webhook_deliveries (account_id, next_attempt_at) where status = 'pending';
    create index webhook_deliveries_done_idx on webhook_deliveries (created_at) where status <> 'pending';

    create table webhook_consent_queue (
      account_id uuid not null references accounts (id) on delete cascade,
      consent_id uuid not null,
      created_at timestamptz not null default now(),
      primary key (account_id, consent_id)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table webhook_consent_queue;
    drop table webhook_deliveries;
    drop table webhook_endpoints;
  `.execute(db);
}
