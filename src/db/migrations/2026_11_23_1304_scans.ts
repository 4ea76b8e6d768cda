import { sql, type Kysely } from 'kysely';

/**
 * Scans, which are also their own job queue: a `queued` row is a job, claimed by one instance at a
 * time (`FOR UPDATE SKIP LOCKED`) that holds it by renewing `lease_until`. A lease that runs out
 * means the instance died: the scan is queued again or, after `attempts` tries, failed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table scans (
      id uuid primary key,
      account_id uuid not null references accounts (id) on delete cascade,
      status text not null default 'queued' check (status in ('queued', 'in_progress', 'completed', 'failed', 'cancelled')),
      scheduled boolean not null default false,
      starting_url text not null,
      max_pages integer not null,
      crawl_subdomains boolean not null default false,
      pages_scanned integer not null default 0,
      storage_items_found integer not null default 0,
      new_storage_items integer not null default 0,
      report jsonb,
      error text,
      attempts integer not null default 0,
      locked_by text,
      lease_until timestamptz,
      started_at timestamptz,
      finished_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index scans_account_created_idx on scans (account_id, created_at, id);
    create index scans_queued_idx on scans (created_at, id) where status = 'queued';
    create index scans_running_idx on scans (lease_until) where status = 'in_progress';
    create unique index scans_one_active_key on scans (account_id) where status in ('queued', 'in_progress');

    alter table accounts add column scan_schedule text not null default 'off' check (scan_schedule in ('off', 'weekly', 'monthly'));
    alter table accounts add column next_scan_at timestamptz;
    create index accounts_next_scan_idx on accounts (next_scan_at) where scan_schedule <> 'off';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index accounts_next_scan_idx;
    alter table accounts drop column next_scan_at;
    alter table accounts drop column scan_schedule;
    drop table scans;
  `.execute(db);
}
