import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { createAiWorker, stderrLog, type AiWorker } from './modules/ai-actions/ai-worker.ts';
import { ConfigError, type Config } from './config.ts';
import { createDb, migrate, type Db, type Engine } from './db/database.ts';
import type { Database } from './db/schema.ts';
import { createLimiters, type Limiters } from './http/rate-limit.ts';
import { createMailer, type Mailer, type MailMessage } from './mail/mailer.ts';
import { MembershipCache } from './modules/account-users/memberships.ts';
import { CategoryCache } from './modules/categories/category-cache.ts';
import { TokenLookup } from './modules/tokens/token-lookup.ts';
import { ConsentWriter } from './modules/consents/consent-writer.ts';
import { BannerScripts } from './modules/widget/banner-script.ts';
import { NoticeHashes } from './modules/notices/notices.service.ts';
import { createScanRunner, type ScanRunner } from './modules/scans/scan-jobs.ts';
import { RetentionJob } from './modules/consent-proof/consent-retention.ts';
import { VisitCounter } from './modules/stats/visit-counter.ts';
import { connectRedis, type RedisClients } from './redis.ts';
import { WebhookWorker } from './modules/webhooks/webhook-worker.ts';
import { configureOutbox } from './modules/webhooks/webhooks.service.ts';
import type { FastifyBaseLogger } from 'fastify';
import { Metrics } from './http/metrics.ts';
import { checkGeoDatabase, GeoDatabaseError, shippedDatabaseFiles } from './geo/geoip.ts';
import { createLocator, type Locator } from './geo/locate.ts';

/** Every module's routes: a Fastify plugin given the shared services. */
export type RoutesPlugin = FastifyPluginAsyncTypebox<{ services: Services }>;

/** Everything long-lived that routes share, built once per process from the configuration. */
export interface Services {
  config: Config;
  db: Kysely<Database>;
  /** The same connection pool, for what Kysely does not say: statements prepared once per connection. */
  connection: Db;
  engine: Engine;
  /** Token rows by hash, cached (see token-lookup.ts). */
  tokens: TokenLookup;
  limiters: Limiters;
  redis: RedisClients | undefined;
  /** Invitation emails: SMTP when SMTP_URL is set, else the log. */
  mailer: Mailer;
  /** Group commit of consents. */
  consentWriter: ConsentWriter;
  /** Pageviews and visitors, counted in memory and written in batches. */
  visits: VisitCounter;
  /** Removes consents past their account's retention, in the background. */
  retention: RetentionJob;
  /** Each account's categories, for reads and consent checks without a round trip. */
  categories: CategoryCache;
  memberships: MembershipCache;
  /** Each account's banner script and configuration, built once (see banner-script.ts). */
  bannerScripts: BannerScripts;
  /** Which notice snapshots each account holds (consents name one), remembered. */
  notices: NoticeHashes;
  /** The AI's background work on storage items (`takeForAi` marks them, `submit` hands them over). */
  ai: AiWorker;
  /** Prometheus metrics, only when METRICS_TOKEN or METRICS_PORT is set. */
  metrics: Metrics | undefined;
  /** The website scans queued in the database, run in a browser, and the scheduled rescans. */
  scans: ScanRunner;
  /** The webhooks' outbox sender, and which accounts want recorded consents (cached). */
  webhooks: WebhookWorker;
  /** Where a visitor is: the trusted headers when configured, else the GeoIP database by address (never kept). */
  locator: Locator;
  /** Forgets revoked tokens here and on every other instance. */
  forgetTokens(hashes: string[]): Promise<void>;
  /** Forgets users' cached memberships (a role changed, a member left) here and on every other instance. */
  forgetMemberships(userIds: string[]): Promise<void>;
  /** Forgets accounts' cached categories (after a change or a deletion) here and on every other instance. */
  forgetCategories(accountIds: string[]): Promise<void>;
  /** Forgets accounts' built banners (settings, categories or storage items changed) here and on every other instance. */
  forgetBanner(accountIds: string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The visitors' locator: the headers GEO_COUNTRY_HEADER and GEO_REGION_HEADER name, then GEOIP_FILE's
 * database or the shipped one (none with GEOIP_DISABLED). An operator's file is checked now, so that
 * a wrong path stops the start instead of leaving every visitor unlocated.
 */
async function createVisitorLocator(config: Config, log: ReturnType<typeof stderrLog>): Promise<Locator> {
  if (config.geoipFiles) {
    await checkGeoDatabase(config.geoipFiles).catch((error: unknown) => {
      throw error instanceof GeoDatabaseError ? new ConfigError(`GEOIP_FILE: ${error.message}`) : error;
    });
  }
  return createLocator({
    headers: { country: config.geoCountryHeader, region: config.geoRegionHeader },
    databaseFiles: config.geoipDisabled ? null : (config.geoipFiles ?? shippedDatabaseFiles()),
    onDatabaseError: (error) => log.error({}, `${error.message}; visitors are located without it until it is fixed and the service restarted`),
  });
}

export async function createServices(config: Config, options: { migrate?: boolean } = {}): Promise<Services> {
  const log = stderrLog(config.logLevel);
  const locator = await createVisitorLocator(config, log);
  const database: Db = createDb(config);
  try {
    if (options.migrate ?? true) await migrate(database, config.databaseSchema);
  } catch (error) {
    await database.close();
    throw error;
  }
  const redis = await connectRedis(config, log);
  const tokens = new TokenLookup(database.kysely);
  const mailer = createMailer(config);
  // The mailer logs through a request's logger; the background workers have the process's.
  const mailLog = { info: (details: object, message: string) => log.warn(details, message), error: log.error } as unknown as FastifyBaseLogger;
  configureOutbox(config);
  const sendMail = (message: MailMessage) => mailer.send(message, mailLog);
  const webhooks = new WebhookWorker(database.kysely, { config, log, mail: sendMail });
  let metrics: Metrics | undefined;
  const visits = new VisitCounter(database.kysely, { flushIntervalMs: config.visitFlushIntervalMs, maxSessions: 50_000 });
  const consentWriter = new ConsentWriter(database, {
    maxBatch: 500,
    maxQueue: config.consentQueueMax,
    // One batch at a time gathers the most rows per COMMIT: measured faster than 2 or 4 on PostgreSQL.
    concurrency: 1,
    onBatch: (size) => metrics?.consentBatchSize.observe(size),
    onLostRace: () => metrics?.consentChainRaces.inc(),
    wantsWebhook: (accountId) => webhooks.wantsConsents(accountId),
  }, visits);
  const retention = new RetentionJob(database.kysely, config.retentionIntervalS);
  const memberships = new MembershipCache(database.kysely);
  const categories = new CategoryCache(database.kysely);
  const notices = new NoticeHashes(database.kysely);
  const bannerScripts = new BannerScripts(database.kysely, notices);
  const ai = createAiWorker(config, database.kysely);
  if (config.metricsToken || config.metricsPort !== undefined) {
    metrics = new Metrics({
      consentQueue: () => consentWriter.pending,
      aiBacklog: () => ai.backlog,
      pool: () => database.poolStats(),
      redisUp: redis ? () => redis.up : undefined,
    });
  }
  await ai.resume();
  const scans = createScanRunner(database.kysely, database.engine, config, ai, log, sendMail);
  await scans.start();
  await webhooks.start();
  const channel = `${config.redisPrefix}forget`;
  if (redis) {
    await redis.subscribed(channel);
    redis.subscriber.on('message', (from: string, message: string) => {
      if (from !== channel) return;
      const [kind, key] = message.split(':', 2);
      if (kind === 'token') tokens.forget(key);
      if (kind === 'user') memberships.forget(key);
      // The banner shows the categories: a change of them is a change of it.
      if (kind === 'categories') {
        categories.forget(key);
        bannerScripts.forget(key);
      }
      if (kind === 'banner') bannerScripts.forget(key);
    });
  }
  const broadcast = async (kind: 'token' | 'user' | 'categories' | 'banner', keys: string[]) => {
    for (const key of keys) await redis?.client.publish(channel, `${kind}:${key}`).catch(() => {});
  };
  return {
    config,
    db: database.kysely,
    connection: database,
    engine: database.engine,
    tokens,
    limiters: createLimiters(config, redis),
    redis,
    mailer,
    consentWriter,
    visits,
    retention,
    categories,
    memberships,
    bannerScripts,
    notices,
    ai,
    metrics,
    scans,
    webhooks,
    locator,
    async forgetTokens(hashes) {
      for (const hash of hashes) tokens.forget(hash);
      await broadcast('token', hashes);
    },
    async forgetMemberships(userIds) {
      for (const userId of userIds) memberships.forget(userId);
      await broadcast('user', userIds);
    },
    async forgetCategories(accountIds) {
      for (const accountId of accountIds) {
        categories.forget(accountId);
        bannerScripts.forget(accountId);
      }
      await broadcast('categories', accountIds);
    },
    async forgetBanner(accountIds) {
      for (const accountId of accountIds) bannerScripts.forget(accountId);
      await broadcast('banner', accountIds);
    },
    async close() {
      await scans.close();
      await ai.close();
      await consentWriter.close();
      await webhooks.close();
      await retention.close();
      await visits.close();
      mailer.close();
      await redis?.close();
      await database.close();
    },
  };
}
