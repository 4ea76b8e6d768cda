import type { Kysely } from 'kysely';
import type { Config } from './config.ts';
import { createDb, migrate, type Db, type Engine } from './db/database.ts';
import type { Database } from './db/schema.ts';
import { createLimiters, type Limiters } from './http/rate-limit.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';
import { CategoryRules } from './modules/consents/category-rules.ts';
import { ConsentWriter } from './modules/consents/consent-writer.ts';
import { TokenCache } from './modules/tokens/token-cache.ts';
import { connectRedis, type RedisClients } from './redis.ts';

/** Everything long-lived that routes share, built once per process from the configuration. */
export interface Services {
  config: Config;
  db: Kysely<Database>;
  engine: Engine;
  tokenCache: TokenCache;
  limiters: Limiters;
  redis: RedisClients | undefined;
  /** Invitation emails: SMTP when SMTP_URL is set, else the log. */
  mailer: Mailer;
  /** Group commit of consents. */
  consentWriter: ConsentWriter;
  categoryRules: CategoryRules;
  /** Forgets revoked tokens here and on every other instance. */
  forgetTokens(hashes: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function createServices(config: Config, options: { migrate?: boolean } = {}): Promise<Services> {
  const database: Db = createDb(config);
  try {
    if (options.migrate ?? true) await migrate(database, config.databaseSchema);
  } catch (error) {
    await database.close();
    throw error;
  }
  const redis = connectRedis(config);
  const tokenCache = new TokenCache();
  const mailer = createMailer(config);
  const consentWriter = new ConsentWriter(database.kysely, {
    maxBatch: 500,
    maxQueue: config.consentQueueMax,
    concurrency: database.engine === 'embedded' ? 1 : 4,
  });
  const channel = `${config.redisPrefix}token-revoked`;
  if (redis) {
    await redis.subscriber.subscribe(channel).catch(() => {});
    redis.subscriber.on('message', (from: string, hash: string) => {
      if (from === channel) tokenCache.forget(hash);
    });
  }
  return {
    config,
    db: database.kysely,
    engine: database.engine,
    tokenCache,
    limiters: createLimiters(config, redis),
    redis,
    mailer,
    consentWriter,
    categoryRules: new CategoryRules(database.kysely),
    async forgetTokens(hashes) {
      for (const hash of hashes) {
        tokenCache.forget(hash);
        await redis?.client.publish(channel, hash).catch(() => {});
      }
    },
    async close() {
      await consentWriter.close();
      mailer.close();
      await redis?.close();
      await database.close();
    },
  };
}
