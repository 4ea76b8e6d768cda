import { sql, type Insertable, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/kysely.ts';
import type { WebhookDeliveriesTable, WebhookDeliveryRow, WebhookDeliveryStatus, WebhookEndpointRow, WebhookEndpointsTable } from '../../db/schema.ts';
import { listPage } from '../../db/list-page.ts';
import { deleteOwnedRow, findOwnedRow, insertOwnedRow, updateOwnedRow } from '../../db/owned-rows.ts';
import { countRows } from '../../db/row-count.ts';
import type { Sort, Window } from '../../http/pagination.ts';

type EndpointFields = Omit<Insertable<WebhookEndpointsTable>, 'id' | 'account_id'>;

export async function listEndpoints(db: Executor, accountId: string, sort: Sort<'created_at'>, window: Window) {
  return listPage(db.selectFrom('webhook_endpoints').where('account_id', '=', accountId),
    (q) => q.selectAll().orderBy(sort.sort, sort.order).orderBy('id', sort.order), window);
}

export async function findEndpoint(db: Executor, accountId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return findOwnedRow(db, 'webhook_endpoints', ['account_id', accountId], id);
}

export async function countEndpoints(db: Executor, accountId: string): Promise<number> {
  return countRows(db.selectFrom('webhook_endpoints').where('account_id', '=', accountId));
}

export async function insertEndpoint(db: Executor, accountId: string, fields: EndpointFields): Promise<WebhookEndpointRow> {
  return insertOwnedRow(db, 'webhook_endpoints', ['account_id', accountId], fields);
}

export async function updateEndpoint(
  db: Executor, accountId: string, id: string, fields: Partial<Omit<WebhookEndpointRow, 'id' | 'account_id' | 'created_at'>>,
): Promise<WebhookEndpointRow | undefined> {
  return updateOwnedRow(db, 'webhook_endpoints', ['account_id', accountId], id, fields);
}

export async function deleteEndpoint(db: Executor, accountId: string, id: string): Promise<boolean> {
  return deleteOwnedRow(db, 'webhook_endpoints', ['account_id', accountId], id);
}

/** The account's enabled endpoints that asked for this event. */
export async function subscribedEndpoints(db: Executor, accountId: string, event: string): Promise<string[]> {
  const rows = await db.selectFrom('webhook_endpoints').select('id')
    .where('account_id', '=', accountId).where('enabled', '=', true).where(sql<boolean>`${event} = any(events)`).execute();
  return rows.map((row) => row.id);
}

/** Every account with an enabled endpoint that asked for this event (the consent writer's cached check). */
export async function subscribedAccounts(db: Executor, event: string): Promise<string[]> {
  const rows = await db.selectFrom('webhook_endpoints').select('account_id').distinct()
    .where('enabled', '=', true).where(sql<boolean>`${event} = any(events)`).execute();
  return rows.map((row) => row.account_id);
}

/** How many deliveries of the account wait to be sent (the outbox's bound). */
export async function countPending(db: Executor, accountId: string): Promise<number> {
  return countRows(db.selectFrom('webhook_deliveries').where('account_id', '=', accountId).where('status', '=', 'pending'));
}

export async function insertDeliveries(db: Executor, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

export async function listDeliveries(
  db: Executor, accountId: string, endpointId: string, filters: { status?: WebhookDeliveryStatus; event?: string },
  sort: Sort<'created_at'>, window: Window,
) {
  let scoped = db.selectFrom('webhook_deliveries').where('account_id', '=', accountId).where('endpoint_id', '=', endpointId);
  if (filters.status) scoped = scoped.where('status', '=', filters.status);
  if (filters.event) scoped = scoped.where('event', '=', filters.event);
  return listPage(scoped, (q) => q.selectAll().orderBy(sort.sort, sort.order).orderBy('id', sort.order), window);
}

/** "Send again": the delivery is due now, with a new retry window and its attempts counted afresh. */
export async function resendDelivery(
  db: Executor, accountId: string, endpointId: string, id: string, now: Date, retryUntil: Date,
): Promise<WebhookDeliveryRow | undefined> {
  return db.updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, retry_until: retryUntil, claimed_until: null, updated_at: now })
    .where('account_id', '=', accountId).where('endpoint_id', '=', endpointId).where('id', '=', id)
    .returningAll().executeTakeFirst();
}

/** A delivery claimed for sending, with what sending it needs of its endpoint. */
export type ClaimedDelivery = WebhookDeliveryRow & { url: string; secret: string };

/**
 * Claims the deliveries due, fairly: each account with deliveries due (in random order) gives at
 * most `perAccount` of its oldest due, `total` in all, so that one account's backlog or failing
 * endpoint never holds up the others. Only deliveries to enabled endpoints are taken. The update
 * re-checks each row's claim as it writes it, so two instances never take the same delivery: on
 * PostgreSQL the second waits for the first's row lock, then finds the claim taken and skips it.
 */
export async function claimDue(db: Executor, now: Date, claimUntil: Date, perAccount: number, total: number): Promise<ClaimedDelivery[]> {
  const free = (alias: string) => sql.raw(`${alias}.status = 'pending' and (${alias}.claimed_until is null or ${alias}.claimed_until < `);
  const candidates = sql<string>`(
    select x.id from (
      select account_id from (select distinct account_id from webhook_deliveries d
        where ${free('d')}${now}) and d.next_attempt_at <= ${now}) a order by random() limit ${total}
    ) a cross join lateral (
      select w.id from webhook_deliveries w join webhook_endpoints e on e.id = w.endpoint_id and e.enabled
      where w.account_id = a.account_id and ${free('w')}${now}) and w.next_attempt_at <= ${now}
      order by w.next_attempt_at limit ${perAccount}
    ) x limit ${total}
  )`;
  const result = await sql<ClaimedDelivery>`update webhook_deliveries as d set claimed_until = ${claimUntil}, attempts = d.attempts + 1, updated_at = ${now}
    from webhook_endpoints e
    where d.id in ${candidates} and e.id = d.endpoint_id and ${free('d')}${now})
    returning d.*, e.url, e.secret`.execute(db);
  return result.rows;
}

/** Hands a claimed delivery back untried (the worker is closing): due again, the attempt not counted. */
export async function releaseClaim(db: Executor, id: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ claimed_until: null, attempts: sql`greatest(attempts - 1, 0)` })
    .where('id', '=', id).where('status', '=', 'pending').execute();
}

export async function markDelivered(db: Executor, id: string, now: Date, statusCode: number): Promise<void> {
  await db.updateTable('webhook_deliveries')
    .set({ status: 'delivered', delivered_at: now, last_status_code: statusCode, last_error: null, claimed_until: null, updated_at: now })
    .where('id', '=', id).execute();
}

/** A failed attempt: due again at `next`, or parked when that is past its retry window (set now if unset). */
export async function markFailed(
  db: Executor, id: string, now: Date, next: Date, retryUntil: Date, outcome: { statusCode: number | null; error: string },
): Promise<WebhookDeliveryStatus> {
  const row = await db.updateTable('webhook_deliveries')
    .set({
      retry_until: sql`coalesce(retry_until, ${retryUntil})`,
      status: sql`case when ${next} > coalesce(retry_until, ${retryUntil}) then 'parked' else 'pending' end`,
      next_attempt_at: next,
      claimed_until: null,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      updated_at: now,
    })
    .where('id', '=', id).returning('status').executeTakeFirst();
  return row?.status ?? 'parked';
}

/** The endpoint answered: it is no longer failing. */
export async function endpointSucceeded(db: Executor, id: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute();
}

/** The endpoint failed: failing since now unless it already was; answers since when. */
export async function endpointFailed(db: Executor, id: string, now: Date): Promise<Date | undefined> {
  const row = await db.updateTable('webhook_endpoints').set({ failing_since: sql`coalesce(failing_since, ${now})` })
    .where('id', '=', id).returning('failing_since').executeTakeFirst();
  return row?.failing_since ?? undefined;
}

/**
 * Disables an endpoint still failing since before `failingBefore`; answers it only to the one
 * caller that disabled it (the one instance that then tells the admins).
 */
export async function disableFailingEndpoint(db: Executor, id: string, failingBefore: Date, now: Date, reason: string): Promise<WebhookEndpointRow | undefined> {
  return db.updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: reason, updated_at: now })
    .where('id', '=', id).where('enabled', '=', true).where('failing_since', '<=', failingBefore)
    .returningAll().executeTakeFirst();
}

/** Parks what a disabled endpoint still had waiting. */
export async function parkPending(db: Executor, endpointId: string, now: Date, error: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'parked', claimed_until: null, last_error: error, updated_at: now })
    .where('endpoint_id', '=', endpointId).where('status', '=', 'pending').execute();
}

/** Removes delivered and parked deliveries made before `before`, at most `limit` of them (the log's retention). */
export async function pruneDeliveries(db: Executor, before: Date, limit: number): Promise<number> {
  const result = await sql`delete from webhook_deliveries where id in (
      select id from webhook_deliveries where status <> 'pending' and created_at < ${before} limit ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * The common table expression the consent writer's statement ends with for the accounts that have
 * a `consent.recorded` webhook: each stored consent of theirs queued for gathering, in the same
 * statement (so the same commit) as the consent. `stored` names the accounts whose rows were stored.
 */
export function queuedConsents(ids: string[], accounts: string[], wanted: string[], stored: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`webhook_queued as (
      insert into webhook_consent_queue (account_id, consent_id)
      select account_id, id from unnest(${ids}::uuid[], ${accounts}::uuid[]) as row(id, account_id)
      where account_id = any(${wanted}::uuid[]) and account_id in (${stored})
    )`;
}

/** Accounts with consents waiting to be gathered. */
export async function accountsWithQueuedConsents(db: Executor, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('webhook_consent_queue').select('account_id').distinct().limit(limit).execute();
  return rows.map((row) => row.account_id);
}

/**
 * The account's enabled endpoints that want recorded consents, locked until the transaction ends
 * (in id order): two instances gathering the same account take turns, and the second sees when
 * the first sent.
 */
export async function lockConsentEndpoints(db: Executor, accountId: string): Promise<Array<{ id: string; consents_sent_at: Date | null }>> {
  return db.selectFrom('webhook_endpoints').select(['id', 'consents_sent_at'])
    .where('account_id', '=', accountId).where('enabled', '=', true).where(sql<boolean>`'consent.recorded' = any(events)`)
    .orderBy('id').forUpdate().execute();
}

export async function markConsentsSent(db: Executor, ids: string[], now: Date): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ consents_sent_at: now }).where('id', 'in', ids).execute();
}

/** Takes up to `limit` of the account's queued consents out of the queue, oldest first. */
export async function takeQueuedConsents(db: Executor, accountId: string, limit: number): Promise<string[]> {
  const result = await sql<{ consent_id: string }>`delete from webhook_consent_queue where account_id = ${accountId} and consent_id in (
      select consent_id from webhook_consent_queue where account_id = ${accountId} order by created_at, consent_id limit ${limit})
    returning consent_id`.execute(db);
  return result.rows.map((row) => row.consent_id);
}

/** Drops the account's queued consents (no endpoint wants them any more). */
export async function dropQueuedConsents(db: Executor, accountId: string): Promise<void> {
  await db.deleteFrom('webhook_consent_queue').where('account_id', '=', accountId).execute();
}
