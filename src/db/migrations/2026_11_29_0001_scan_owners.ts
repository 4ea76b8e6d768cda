import { sql, type Kysely } from 'kysely';

/**
 * Each scan names its owner, the user or partner it counts against: the partner of the account's
 * group, else the account's owning user, else the account itself (a user-less account outside any
 * group). The queue takes scans round robin across owners and bounds each owner's queued or running
 * scans; both read this column through the two indexes below, the owner's running scans and the
 * owner's last start.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table scans add column owner_id uuid;
    update scans set owner_id = coalesce(g.partner_id, a.owner_id, a.id)
      from accounts a left join groups g on g.id = a.group_id
      where a.id = scans.account_id;
    alter table scans alter column owner_id set not null;
    create index scans_owner_active_idx on scans (owner_id, status, created_at, id) where status in ('queued', 'in_progress');
    create index scans_owner_started_idx on scans (owner_id, started_at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table scans drop column owner_id`.execute(db);
}
