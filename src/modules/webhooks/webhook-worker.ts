import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import { newId } from '../../db/ids.ts';
import type { Database } from '../../db/schema.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import { webhookDisabledEmail } from '../../mail/webhook-disabled-email.ts';
import { adminsOf } from '../account-users/account-users.service.ts';
import type { WorkerLog } from '../ai-actions/ai-actions.service.ts';
import { findConsentsByIds } from '../consents/consents.service.ts';
import { sendDelivery, type SendOutcome } from './webhook-sender.ts';
import {
  accountsWithQueuedConsents,
  claimDue,
  countPending,
  disableFailingEndpoint,
  dropQueuedConsents,
  endpointFailed,
  endpointSucceeded,
  insertDeliveries,
  lockConsentEndpoints,
  markConsentsSent,
  markDelivered,
  markFailed,
  parkPending,
  pruneDeliveries,
  releaseClaim,
  takeQueuedConsents,
  type ClaimedDelivery,
} from './webhooks.repository.ts';
import { messageIdOf, payloadOf, WebhookSubscriptions } from './webhooks.service.ts';

/** Deliveries one look claims at most, and of one account: one account's backlog or failing endpoint never fills a look. */
export const PER_TICK = 50;
export const PER_ACCOUNT_PER_TICK = 5;
/** Attempts in flight at once on this instance. */
const CONCURRENCY = 10;
/** Recorded consents gathered into one delivery at most; the rest wait for the next second. */
const CONSENTS_PER_DELIVERY = 500;
/** Accounts whose queued consents one look gathers. */
const ACCOUNTS_PER_GATHER = 50;
/** At most one `consent.recorded` delivery per endpoint per this. */
const CONSENT_BATCH_MS = 1_000;
/** The longest wait between two retries. */
const MAX_DELAY_MS = 6 * 3_600_000;
/** Delivered and parked deliveries are kept this long in the delivery log. */
const LOG_DAYS = 7;
const PRUNE_EVERY_MS = 60_000;

export interface WebhookWorkerDeps {
  config: Config;
  log: WorkerLog;
  /** Sends an email (the service's mailer). */
  mail: (message: MailMessage) => Promise<void>;
  /** The worker's clock (tests move it). */
  clock?: () => Date;
}

/**
 * The delay before attempt `attempts + 1`: `base` × 3^(attempts − 1), capped at 6 hours, ±20% jitter
 * (so that the deliveries of one outage do not all come back at the same moment).
 */
export function retryDelay(baseMs: number, attempts: number, random = Math.random): number {
  const plain = Math.min(baseMs * 3 ** Math.max(0, attempts - 1), MAX_DELAY_MS);
  return Math.round(plain * (0.8 + 0.4 * random()));
}

/**
 * Sends the outbox. Every look (each `WEBHOOK_POLL_INTERVAL_MS`, or at once after `wake()`): the
 * consents queued for `consent.recorded` gathered into one delivery per endpoint (at most one a
 * second), then the deliveries due claimed fairly across accounts (`claimDue`) and sent, at most
 * `CONCURRENCY` at a time. A failure is retried with backoff until its window closes, then parked;
 * an endpoint failing for `WEBHOOK_DISABLE_AFTER_S` is disabled and the account's admins emailed.
 * Safe on several instances: claims and the consents' gathering are atomic in the database.
 */
export class WebhookWorker {
  readonly subscriptions: WebhookSubscriptions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private lastPrune = 0;
  private readonly stopping = new AbortController();
  private readonly clock: () => Date;

  constructor(private readonly db: Kysely<Database>, private readonly deps: WebhookWorkerDeps) {
    this.subscriptions = new WebhookSubscriptions(db);
    this.clock = deps.clock ?? (() => new Date());
  }

  async start(): Promise<void> {
    await this.subscriptions.start((err) => this.deps.log.error({ err }, 'webhook subscriptions could not be read'));
    this.timer = setInterval(() => this.wake(), this.deps.config.webhookPollIntervalMs).unref();
  }

  /** Whether the account has a `consent.recorded` endpoint (from memory: the consent writer asks). */
  wantsConsents(accountId: string): boolean {
    return this.subscriptions.wantsConsents(accountId);
  }

  /** An endpoint changed here: read the subscriptions again now. */
  async changed(): Promise<void> {
    await this.subscriptions.refresh();
  }

  /** Looks now (a delivery was sent again), or once more after the look under way. */
  wake(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.tick()
      .catch((err: unknown) => this.deps.log.error({ err }, 'webhook worker could not run'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Waits for the look under way (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops looking; attempts in flight are abandoned and their deliveries handed back for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.subscriptions.close();
    this.stopping.abort();
    await this.running;
  }

  /** One look: gather consents, send what is due, and now and then prune the log. */
  async tick(): Promise<void> {
    await this.gatherConsents();
    const now = this.clock();
    const { webhookTimeoutMs } = this.deps.config;
    const claimed = await claimDue(this.db, now, new Date(now.getTime() + webhookTimeoutMs + 30_000), PER_ACCOUNT_PER_TICK, PER_TICK);
    const queue = [...claimed];
    const workers = Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (this.closed) {
          await releaseClaim(this.db, next.id);
          continue;
        }
        await this.attempt(next).catch((err: unknown) => this.deps.log.error({ err, deliveryId: next!.id }, 'webhook delivery could not be recorded'));
      }
    });
    await Promise.all(workers);
    if (now.getTime() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now.getTime();
      await pruneDeliveries(this.db, new Date(now.getTime() - LOG_DAYS * 86_400_000), 1_000);
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { config } = this.deps;
    const outcome: SendOutcome = await sendDelivery(
      { url: delivery.url, secret: delivery.secret },
      { id: messageIdOf(delivery.id), payload: await this.bodyOf(delivery), at: this.clock() },
      { allowPrivateNetworks: config.webhookAllowPrivateNetworks, timeoutMs: config.webhookTimeoutMs, signal: this.stopping.signal },
    );
    if (outcome.aborted) {
      await releaseClaim(this.db, delivery.id);
      return;
    }
    const now = this.clock();
    if (outcome.ok) {
      await markDelivered(this.db, delivery.id, now, outcome.statusCode!);
      await endpointSucceeded(this.db, delivery.endpoint_id);
      return;
    }
    const next = new Date(now.getTime() + retryDelay(config.webhookRetryBaseMs, delivery.attempts));
    const retryUntil = new Date(delivery.created_at.getTime() + config.webhookRetryWindowS * 1000);
    await markFailed(this.db, delivery.id, now, next, retryUntil, { statusCode: outcome.statusCode, error: outcome.error ?? 'failed' });
    const since = await endpointFailed(this.db, delivery.endpoint_id, now);
    if (since && now.getTime() - since.getTime() >= config.webhookDisableAfterS * 1000) {
      await this.disable(delivery, since, now, outcome.error);
    }
  }

  /**
   * The body to send: the stored payload, except that a `consent.recorded` one names its consents,
   * which are read now (erased fields come out erased; a consent removed since is left out).
   */
  private async bodyOf(delivery: ClaimedDelivery): Promise<string> {
    if (delivery.event !== 'consent.recorded') return delivery.payload;
    const stored = JSON.parse(delivery.payload) as { type: 'consent.recorded'; timestamp: string; account_id: string; data: { consent_ids: string[] } };
    const consents = await findConsentsByIds(this.db, delivery.account_id, stored.data.consent_ids);
    const data = consents.map((c) => ({
      id: c.id, created_at: c.created_at.toISOString(), session_id: c.session_id, user_id: c.user_id,
      accept_type: c.user_preferences.accept_type,
      accepted_categories: c.user_preferences.accepted_categories, rejected_categories: c.user_preferences.rejected_categories,
      accepted_services: c.user_preferences.accepted_services, rejected_services: c.user_preferences.rejected_services,
      url: c.url, gpc: c.gpc, country: c.country, region: c.region, mode: c.mode, chain_seq: c.chain_seq, hash: c.hash,
      erased_at: c.erased_at?.toISOString() ?? null,
    }));
    return JSON.stringify({ ...stored, data });
  }

  /** Disables an endpoint failing for too long (once, whichever instance gets there first) and tells the admins. */
  private async disable(delivery: ClaimedDelivery, since: Date, now: Date, lastError: string | null): Promise<void> {
    const { config } = this.deps;
    const reason = `Every delivery failed from ${since.toISOString()} to ${now.toISOString()}`;
    const endpoint = await disableFailingEndpoint(this.db, delivery.endpoint_id, new Date(now.getTime() - config.webhookDisableAfterS * 1000), now, reason);
    if (!endpoint) return;
    await parkPending(this.db, endpoint.id, now, 'parked: the webhook was disabled after failing');
    await this.subscriptions.refresh();
    for (const admin of await adminsOf(this.db, endpoint.account_id)) {
      const message = webhookDisabledEmail({
        to: admin.user_email, accountName: admin.account_name, url: endpoint.url, failingSince: since, lastError,
        dashboardUrl: `${config.publicUrl}/accounts/${endpoint.account_id}/webhooks`,
      });
      await this.deps.mail(message).catch((err: unknown) => this.deps.log.error({ err, webhookId: endpoint.id }, 'webhook disabled: the admin could not be emailed'));
    }
  }

  /**
   * Gathers the queued consents of each account into one `consent.recorded` delivery per endpoint,
   * at most once a second per endpoint. The account's endpoints are locked while it is done, so
   * that two instances never both send within the second; the queue rows are taken out in the same
   * transaction the deliveries are written in.
   */
  private async gatherConsents(): Promise<void> {
    const accounts = await accountsWithQueuedConsents(this.db, ACCOUNTS_PER_GATHER);
    for (const accountId of accounts) {
      await this.db.transaction().execute(async (trx) => {
        const now = this.clock();
        const endpoints = await lockConsentEndpoints(trx, accountId);
        if (endpoints.length === 0) {
          await dropQueuedConsents(trx, accountId);
          return;
        }
        if (endpoints.some((e) => e.consents_sent_at && now.getTime() - e.consents_sent_at.getTime() < CONSENT_BATCH_MS)) return;
        // Past the outbox's bound the consents wait in their queue until the backlog drains.
        if ((await countPending(trx, accountId)) + endpoints.length > this.deps.config.webhookOutboxMax) return;
        const ids = await takeQueuedConsents(trx, accountId, CONSENTS_PER_DELIVERY);
        if (ids.length === 0) return;
        // Only the ids are kept: the consents are read at each attempt (`bodyOf`), so that an erasure
        // since reaches what is sent and the outbox keeps no visitor's identifiers.
        const payload = payloadOf('consent.recorded', accountId, { consent_ids: ids }, now);
        await insertDeliveries(trx, endpoints.map((e) => ({
          id: newId(), account_id: accountId, endpoint_id: e.id, event: 'consent.recorded', payload, next_attempt_at: now,
        })));
        await markConsentsSent(trx, endpoints.map((e) => e.id), now);
      });
    }
  }
}
