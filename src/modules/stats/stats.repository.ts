import { sql } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import { HyperLogLog } from '../../lib/hyperloglog.ts';

/** The accounts among `ids` that still exist, locked against deletion until the transaction ends. */
export async function existingAccounts(db: Executor, ids: string[]): Promise<Set<string>> {
  const rows = await db.selectFrom('accounts').select('id').where('id', 'in', ids).orderBy('id').forKeyShare().execute();
  return new Set(rows.map((row) => row.id));
}

/**
 * Merges each account's visitors of `day` into its stored sketch. The rows are created first and
 * then read locked, so that two instances flushing at once merge one after the other.
 */
export async function mergeSketches(db: Executor, day: string, sketches: { accountId: string; sketch: HyperLogLog }[]): Promise<void> {
  if (sketches.length === 0) return;
  const ordered = [...sketches].sort((a, b) => (a.accountId < b.accountId ? -1 : 1));
  const ids = ordered.map((s) => s.accountId);
  await sql`insert into account_daily_sketches (account_id, day, registers)
    select id, ${day}::date, ${new HyperLogLog().registers} from unnest(${ids}::uuid[]) as id
    on conflict (account_id, day) do nothing`.execute(db);
  const stored = await db.selectFrom('account_daily_sketches').select(['account_id', 'registers'])
    .where('account_id', 'in', ids).where('day', '=', sql<Date>`${day}::date`).orderBy('account_id').forUpdate().execute();
  const merged = new Map(stored.map((row) => [row.account_id, new HyperLogLog(row.registers)]));
  for (const { accountId, sketch } of ordered) merged.get(accountId)!.merge(sketch);
  await sql`update account_daily_sketches s set registers = u.registers
    from unnest(${ids}::uuid[], ${ordered.map((s) => Buffer.from(merged.get(s.accountId)!.registers))}::bytea[]) as u(account_id, registers)
    where s.account_id = u.account_id and s.day = ${day}::date`.execute(db);
}

const dayText = sql<string>`to_char(day, 'YYYY-MM-DD')`;

/** Consents per account and day, by accept type, with GPC. */
export async function consentDays(db: Executor, accountIds: string[], from: string, to: string) {
  return db.selectFrom('consent_daily_stats')
    .select(['account_id', dayText.as('day'), 'consents', 'accept_all', 'accept_custom', 'accept_necessary', 'gpc'])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .execute();
}

/** Accepted and rejected choices per category and day, summed over the accounts. */
export async function categoryDays(db: Executor, accountIds: string[], from: string, to: string) {
  return db.selectFrom('consent_daily_categories')
    .select(['category_id', dayText.as('day')])
    .select((eb) => [eb.fn.sum<number>('accepted').as('accepted'), eb.fn.sum<number>('rejected').as('rejected')])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .groupBy(['category_id', 'day'])
    .execute();
}

/** Pageviews and (exact, daily) visitors per account and day. */
export async function visitDays(db: Executor, accountIds: string[], from: string, to: string) {
  return db.selectFrom('account_daily_stats').select(['account_id', dayText.as('day'), 'pageviews', 'visitors'])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .execute();
}

/** The visitor sketches per account and day. */
export async function sketchDays(db: Executor, accountIds: string[], from: string, to: string) {
  return db.selectFrom('account_daily_sketches').select(['account_id', dayText.as('day'), 'registers'])
    .where('account_id', 'in', accountIds).where('day', '>=', sql<Date>`${from}::date`).where('day', '<=', sql<Date>`${to}::date`)
    .execute();
}

/** The slugs and names of categories that still exist. */
export async function categoryNames(db: Executor, accountIds: string[]) {
  return db.selectFrom('categories').select(['id', 'slug', 'name']).where('account_id', 'in', accountIds).execute();
}

/** The accounts of a partner's group (none when the group is another partner's). */
export async function groupAccounts(db: Executor, partnerId: string, groupId: string) {
  return db.selectFrom('accounts').innerJoin('groups', 'groups.id', 'accounts.group_id')
    .select(['accounts.id', 'accounts.name']).where('groups.partner_id', '=', partnerId).where('groups.id', '=', groupId)
    .orderBy('accounts.created_at').orderBy('accounts.id').execute();
}

export async function groupExists(db: Executor, partnerId: string, groupId: string): Promise<boolean> {
  return !!(await db.selectFrom('groups').select('id').where('partner_id', '=', partnerId).where('id', '=', groupId).executeTakeFirst());
}
