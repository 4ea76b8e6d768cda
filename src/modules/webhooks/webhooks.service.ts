import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import { newId } from '../../db/ids.ts';
import type { Executor } from '../../db/kysely.ts';
import type { Database, WebhookEndpointRow } from '../../db/schema.ts';
import { found, ValidationError } from '../../http/app-errors.ts';
import { recordAudit } from '../audit-log/audit-log.service.ts';
import { addressPolicy, RefusedAddressError, resolveAllowed, UnresolvedHostError } from '../../scanner/address-guard.ts';
import {
  countEndpoints,
  countPending,
  deleteEndpoint,
  findEndpoint,
  insertDeliveries,
  insertEndpoint,
  resendDelivery as resend,
  subscribedAccounts,
  subscribedEndpoints,
  updateEndpoint,
} from './webhooks.repository.ts';
import { WEBHOOK_EVENTS, type WebhookEvent, type WebhookFields } from './webhooks.schema.ts';

export { WEBHOOK_EVENTS, type WebhookEvent } from './webhooks.schema.ts';

/** A new signing secret as Standard Webhooks writes it: `whsec_` and base64 of 32 random bytes. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The `webhook-id` of a delivery: the same on every attempt, so that a receiver can drop repeats. */
export const messageIdOf = (deliveryId: string): string => `msg_${deliveryId.replace(/-/g, '')}`;

const PRIVATE_HINT = 'an operator can allow private networks with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true';

/**
 * An endpoint's URL: https (plain http only where private networks are allowed, for tests and
 * intranets), no credentials, and a host that resolves to public addresses only (checked again at
 * every delivery, against the address then connected to).
 */
export async function checkedUrl(config: Pick<Config, 'webhookAllowPrivateNetworks'>, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ValidationError('Url is invalid');
  }
  const allowed = config.webhookAllowPrivateNetworks ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol)) throw new ValidationError('Url must start with https://');
  if (url.username || url.password) throw new ValidationError('Url must not carry a user name or password');
  try {
    await resolveAllowed(url.hostname, addressPolicy(config.webhookAllowPrivateNetworks));
  } catch (error) {
    if (error instanceof RefusedAddressError) throw new ValidationError(`Url is not allowed: ${error.message}; ${PRIVATE_HINT}`);
    if (error instanceof UnresolvedHostError) throw new ValidationError(`Url is not allowed: ${error.message}`);
    throw error;
  }
  url.hash = '';
  return url.href;
}

/** Each event once, in the order of the list of events. */
const eventsOf = (events: string[]) => WEBHOOK_EVENTS.filter((event) => events.includes(event));

/** A new endpoint of the account, within `WEBHOOKS_PER_ACCOUNT_MAX`; its secret is answered this once. */
export async function createEndpoint(db: Kysely<Database>, config: Config, accountId: string, fields: WebhookFields & { url: string; events: string[] }) {
  const url = await checkedUrl(config, fields.url);
  if ((await countEndpoints(db, accountId)) >= config.webhooksPerAccountMax) {
    throw new ValidationError(`Account has reached its limit of ${config.webhooksPerAccountMax} webhooks`);
  }
  const secret = newSecret();
  const row = await db.transaction().execute(async (trx) => {
    const created = await insertEndpoint(trx, accountId, {
      url, events: eventsOf(fields.events), enabled: fields.enabled ?? true, description: fields.description ?? '', secret,
    });
    await recordAudit(trx, { accountId, resourceType: 'webhook', resourceId: created.id, action: 'create', after: created });
    return created;
  });
  return { row, secret };
}

/** Changes what was sent; enabling an endpoint again forgets why and since when it was failing. */
export async function changeEndpoint(db: Kysely<Database>, config: Config, accountId: string, id: string, fields: WebhookFields): Promise<WebhookEndpointRow> {
  const current = found(await findEndpoint(db, accountId, id));
  const changes: Parameters<typeof updateEndpoint>[3] = {};
  if (fields.url !== undefined) changes.url = await checkedUrl(config, fields.url);
  if (fields.events !== undefined) changes.events = eventsOf(fields.events);
  if (fields.description !== undefined) changes.description = fields.description;
  if (fields.enabled !== undefined) {
    changes.enabled = fields.enabled;
    if (fields.enabled) Object.assign(changes, { disabled_reason: null, failing_since: null });
  }
  return db.transaction().execute(async (trx) => {
    const row = found(await updateEndpoint(trx, accountId, id, changes));
    await recordAudit(trx, { accountId, resourceType: 'webhook', resourceId: id, action: 'update', before: current, after: row });
    return row;
  });
}

/** A new signing secret; the log says it was replaced, never what it is. */
export async function rotateSecret(db: Kysely<Database>, accountId: string, id: string) {
  const secret = newSecret();
  const row = await db.transaction().execute(async (trx) => {
    const rotated = found(await updateEndpoint(trx, accountId, id, { secret }));
    await recordAudit(trx, { accountId, resourceType: 'webhook', resourceId: id, action: 'rotate_secret' });
    return rotated;
  });
  return { row, secret };
}

export async function removeEndpoint(db: Kysely<Database>, accountId: string, id: string): Promise<void> {
  const current = found(await findEndpoint(db, accountId, id));
  await db.transaction().execute(async (trx) => {
    found(await deleteEndpoint(trx, accountId, id));
    await recordAudit(trx, { accountId, resourceType: 'webhook', resourceId: id, action: 'delete', before: current });
  });
}

/** "Send again": due now, retried for a new window. */
export async function resendDeliveryOf(db: Executor, config: Pick<Config, 'webhookRetryWindowS'>, accountId: string, endpointId: string, id: string) {
  const now = new Date();
  return found(await resend(db, accountId, endpointId, id, now, new Date(now.getTime() + config.webhookRetryWindowS * 1000)));
}

/** The outbox's bound per account (WEBHOOK_OUTBOX_MAX), set once at start by `configureOutbox`. */
let outboxMax = 10_000;
export function configureOutbox(config: Pick<Config, 'webhookOutboxMax'>): void {
  outboxMax = config.webhookOutboxMax;
}

/** The body of every delivery, as Standard Webhooks suggests: the event's type, when, and its data. */
export const payloadOf = (event: WebhookEvent, accountId: string, data: unknown, at = new Date()): string =>
  JSON.stringify({ type: event, timestamp: at.toISOString(), account_id: accountId, data });

/**
 * Writes one delivery of an event for each of the account's enabled endpoints that asked for it,
 * with `db` the transaction of the change the event tells of: committed with it, or not at all.
 * Past the outbox's bound (the account's deliveries waiting), the event is not queued: a receiver
 * that has not taken the backlog would not take more. Answers how many deliveries were queued.
 */
export async function enqueueEvent(db: Executor, accountId: string, event: WebhookEvent, data: unknown): Promise<number> {
  const endpoints = await subscribedEndpoints(db, accountId, event);
  if (endpoints.length === 0) return 0;
  if ((await countPending(db, accountId)) + endpoints.length > outboxMax) return 0;
  const now = new Date();
  const payload = payloadOf(event, accountId, data, now);
  await insertDeliveries(db, endpoints.map((endpointId) => ({
    id: newId(), account_id: accountId, endpoint_id: endpointId, event, payload, next_attempt_at: now,
  })));
  return endpoints.length;
}

/**
 * Which accounts have an enabled `consent.recorded` endpoint, known in memory so that the consent
 * writer asks it per account without a round trip: recording consents for an account without one
 * costs a set lookup. Read again every few seconds (another instance may have changed an endpoint)
 * and at once after a change made here.
 */
export class WebhookSubscriptions {
  private accounts = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Executor, private readonly refreshMs = 5_000) {}

  wantsConsents(accountId: string): boolean {
    return this.accounts.size > 0 && this.accounts.has(accountId);
  }

  async refresh(): Promise<void> {
    this.accounts = new Set(await subscribedAccounts(this.db, 'consent.recorded'));
  }

  async start(onError: (error: unknown) => void): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch(onError), this.refreshMs).unref();
  }

  close(): void {
    clearInterval(this.timer);
  }
}

export { queuedConsents } from './webhooks.repository.ts';

/**
 * For the notices: tells `notice.changed` in the transaction that records a new notice snapshot
 * (its hash, when, and what the snapshot module wants a receiver to know of it).
 */
export async function noticeChanged(db: Executor, accountId: string, notice: { notice_hash: string; created_at: string } & Record<string, unknown>): Promise<number> {
  return enqueueEvent(db, accountId, 'notice.changed', notice);
}
