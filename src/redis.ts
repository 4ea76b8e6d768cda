import { Redis } from 'ioredis';
import type { Config } from './config.ts';

export interface RedisClients {
  /** Commands: rate-limit counters, publishing revocations. */
  client: Redis;
  /** A connection in subscriber mode can run nothing else. */
  subscriber: Redis;
  close(): Promise<void>;
}

export function connectRedis(config: Config): RedisClients | undefined {
  if (!config.redisUrl) return undefined;
  const options = { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false };
  const client = new Redis(config.redisUrl, options);
  const subscriber = new Redis(config.redisUrl, options);
  // Errors surface on the commands that fail; the limiter falls back to memory meanwhile.
  client.on('error', () => {});
  subscriber.on('error', () => {});
  return {
    client,
    subscriber,
    close: async () => {
      client.disconnect();
      subscriber.disconnect();
    },
  };
}
