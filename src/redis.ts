import type { Redis } from 'ioredis';
import type { Config } from './config.ts';

export interface RedisClients {
  /** Commands: rate-limit counters, publishing revocations. */
  client: Redis;
  /** A connection in subscriber mode can run nothing else. */
  subscriber: Redis;
  /**
   * Subscribes once the connection is ready: a SUBSCRIBE sent earlier races ioredis' ready check
   * and is dropped. While Redis is down this returns at once; ioredis subscribes on connecting.
   */
  subscribed(channel: string): Promise<void>;
  close(): Promise<void>;
}

/** ioredis is loaded only when Redis is configured: a single instance spares its memory (about 12 MiB). */
export async function connectRedis(config: Config): Promise<RedisClients | undefined> {
  if (!config.redisUrl) return undefined;
  const { Redis } = await import('ioredis');
  const options = { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false };
  const client = new Redis(config.redisUrl, options);
  const subscriber = new Redis(config.redisUrl, options);
  // Errors surface on the commands that fail; the limiter falls back to memory meanwhile.
  client.on('error', () => {});
  subscriber.on('error', () => {});
  return {
    client,
    subscriber,
    async subscribed(channel) {
      const ready = new Promise<boolean>((resolve) => {
        if (subscriber.status === 'ready') return resolve(true);
        subscriber.once('ready', () => resolve(true));
        setTimeout(() => resolve(false), 5_000).unref();
      });
      if (await ready) await subscriber.subscribe(channel).catch(() => {});
      else subscriber.once('ready', () => void subscriber.subscribe(channel).catch(() => {}));
    },
    close: async () => {
      client.disconnect();
      subscriber.disconnect();
    },
  };
}
