import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { AiWorker, WorkerLog } from '../ai-actions/ai-actions.service.ts';
import type { Config } from '../../config.ts';
import type { Engine } from '../../db/database.ts';
import type { Database, ScanRow } from '../../db/schema.ts';
import { ValidationError } from '../../http/app-errors.ts';
import { CrawlError } from '../../scanner/crawl-error.ts';
import { crawlInThread } from '../../scanner/crawl-thread.ts';
import { takeDueScanSchedules } from '../accounts/accounts.service.ts';
import { recordScannedItems } from '../storage-items/scanned-items.service.ts';
import { claimNextScan, findPreviousCompletedScan, finishScan, recoverAbandonedScans, releaseScan, renewLease } from './scans.repository.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import { enqueueEvent } from '../webhooks/webhooks.service.ts';
import { beforeConsentOf, emailScanAlert, scanCompletedData, worthTelling, type ScanAlert } from './scan-alerts.ts';
import { scanChanges } from './scan-changes.ts';
import type { StoredReport } from './scans.schema.ts';
import { findingsOf, queueScan, reportJson } from './scans.service.ts';

/** A scan interrupted this many times (its server died each time) is failed instead of tried again. */
export const MAX_ATTEMPTS = 3;
const POLL_MS = 2_000;
const SCHEDULE_MS = 60_000;

/**
 * Runs the scans queued in the database: at most `SCAN_CONCURRENCY` at once on this instance, each
 * in a browser of its own driven from a worker thread (the API's event loop only writes the results). The database is the queue (see the migration): a scan is claimed with a
 * lease this instance renews after every page and on a timer; a scan whose lease ran out belonged to
 * a dead instance and is queued again (started over) or, after MAX_ATTEMPTS, failed with the reason.
 * The embedded database has a single process, so at start every running scan it holds is an orphan.
 * The scheduler queues the rescans of accounts whose `scan_schedule` is due.
 */
export class ScanRunner {
  private readonly instanceId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly running = new Map<string, AbortController>();
  private readonly tasks = new Set<Promise<void>>();
  private timers: NodeJS.Timeout[] = [];
  private polling: Promise<void> | undefined;
  private pollAgain = false;
  private closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
    private readonly config: Config,
    private readonly ai: AiWorker,
    private readonly log: WorkerLog,
    /** Sends the scheduled scans' alerts to the account's admins. */
    private readonly mail?: (message: MailMessage) => Promise<void>,
    /** What visits the site: Chromium in a worker thread (tests give a site's findings without a browser). */
    private readonly crawl: typeof crawlInThread = crawlInThread,
  ) {}

  async start(): Promise<void> {
    await this.recover(this.engine === 'embedded');
    this.timers = [
      setInterval(() => this.wake(), POLL_MS).unref(),
      setInterval(() => void this.queueDueRescans(), SCHEDULE_MS).unref(),
    ];
    this.wake();
  }

  /** Looks for queued scans now (a request just queued one). */
  wake(): void {
    if (this.closed) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = this.poll()
      .catch((err: unknown) => this.log.error({ err }, 'scan runner could not poll its queue'))
      .finally(() => {
        this.polling = undefined;
        if (this.pollAgain) {
          this.pollAgain = false;
          this.wake();
        }
      });
  }

  /** Stops taking scans; the running ones stop and go back to the queue for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.polling;
    for (const controller of this.running.values()) controller.abort('closing');
    await Promise.all(this.tasks);
  }

  /** Queues the rescans whose date has come; returns how many. */
  async queueDueRescans(): Promise<number> {
    let queued = 0;
    try {
      for (const account of await takeDueScanSchedules(this.db, 50)) {
        const host = account.domain.replace(/^\*\./, '');
        try {
          await queueScan(this.db, this.config, account.id, { starting_url: `https://${host}/` }, true);
          queued += 1;
        } catch (err) {
          // An account already scanning keeps that scan; a site that no longer resolves waits for the next date.
          if (!(err instanceof ValidationError)) throw err;
        }
      }
    } catch (err) {
      this.log.error({ err }, 'scan scheduler could not queue the due rescans');
    }
    if (queued > 0) this.wake();
    return queued;
  }

  private async recover(all: boolean) {
    const recovered = await recoverAbandonedScans(this.db, {
      all,
      maxAttempts: MAX_ATTEMPTS,
      reason: `The scan was interrupted ${MAX_ATTEMPTS} times: the server running it stopped`,
    });
    for (const scan of recovered) {
      this.log.error({ scanId: scan.id, status: scan.status }, 'scan abandoned by a stopped server was taken back');
    }
  }

  private async poll() {
    if (this.engine === 'postgres') await this.recover(false);
    while (!this.closed && this.running.size < this.config.scanConcurrency) {
      const scan = await claimNextScan(this.db, this.instanceId, this.config.scanLeaseS);
      if (!scan) return;
      const controller = new AbortController();
      this.running.set(scan.id, controller);
      const task = this.run(scan, controller)
        .catch((err: unknown) => this.log.error({ err, scanId: scan.id }, 'scan could not be recorded'))
        .finally(() => {
          this.running.delete(scan.id);
          this.tasks.delete(task);
          this.wake();
        });
      this.tasks.add(task);
    }
  }

  private async run(scan: ScanRow, controller: AbortController) {
    const { db, config, instanceId } = this;
    const renew = async (pages?: number) => {
      if (!(await renewLease(db, scan.id, instanceId, config.scanLeaseS, pages))) controller.abort('cancelled');
    };
    const heartbeat = setInterval(() => {
      renew().catch((err: unknown) => this.log.error({ err, scanId: scan.id }, 'scan lease could not be renewed'));
    }, (config.scanLeaseS * 1000) / 3);
    try {
      const result = await this.crawl({
        chromiumPath: config.scanChromiumPath,
        startingUrl: scan.starting_url,
        maxPages: scan.max_pages,
        crawlSubdomains: scan.crawl_subdomains,
        allowPrivateNetworks: config.scanAllowPrivateNetworks,
        pageTimeoutMs: config.scanPageTimeoutMs,
      }, { signal: controller.signal, onPage: (pages) => renew(pages) });
      if (controller.signal.aborted) throw new CrawlError('The scan was cancelled');
      const recorded = await recordScannedItems(db, scan.account_id, result.items, new Date());
      for (const row of recorded.created) this.ai.submit(row);
      const previous = await findPreviousCompletedScan(db, scan.account_id, scan.id);
      const report: StoredReport = {
        pages: result.pages,
        storage_items: result.items.map((item, i) => ({ ...item, storage_item_id: recorded.itemIds[i] ?? null })),
        ...(previous?.report && { changes: scanChanges(previous.id, previous.report as StoredReport, result.items) }),
        refused: result.refused,
        consent_banner: result.consent_banner,
      };
      const outcome = {
        pages_scanned: new Set(result.pages.filter((page) => page.pass === 'before_consent').map((page) => page.url)).size,
        storage_items_found: result.items.length,
        new_storage_items: recorded.created.length,
      };
      const findings = await findingsOf(db, scan.account_id, [{ ...scan, report: report as unknown as Record<string, unknown> }]);
      const alert: ScanAlert = { changes: report.changes, beforeConsent: beforeConsentOf(findings.get(scan.id)!) };
      // The scan and its webhook are committed together.
      const finished = await db.transaction().execute(async (trx) => {
        const done = await finishScan(trx, scan.id, instanceId, { status: 'completed', ...outcome, report: reportJson(report), error: null });
        if (done) await enqueueEvent(trx, scan.account_id, 'scan.completed', scanCompletedData(scan, outcome, alert));
        return done;
      });
      if (finished && scan.scheduled && this.mail && worthTelling(alert)) {
        await emailScanAlert(db, config, this.mail, scan, alert)
          .catch((err: unknown) => this.log.error({ err, scanId: scan.id }, 'scan alert could not be emailed'));
      }
    } catch (err) {
      if (controller.signal.reason === 'closing') {
        await releaseScan(db, scan.id, instanceId);
      } else if (controller.signal.reason !== 'cancelled') {
        // The words of an unexpected error (a database's, a browser's) stay in the log.
        const message = err instanceof CrawlError ? err.message : 'The scan stopped on an unexpected error; it is in the server log';
        if (!(err instanceof CrawlError)) this.log.error({ err, scanId: scan.id }, 'scan failed');
        await finishScan(db, scan.id, instanceId, { status: 'failed', error: message.slice(0, 1000) });
      }
    } finally {
      clearInterval(heartbeat);
    }
  }
}

export function createScanRunner(
  db: Kysely<Database>, engine: Engine, config: Config, ai: AiWorker, log: WorkerLog, mail?: (message: MailMessage) => Promise<void>,
) {
  return new ScanRunner(db, engine, config, ai, log, mail);
}
