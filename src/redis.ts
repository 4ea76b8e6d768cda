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
  /** Whether the command connection is ready: while it is not, limits and invalidations are per instance. */
  readonly up: boolean;
  /** Called on every change of `up` (the loss and the return of Redis), once per change. */
  onStateChange(listener: (up: boolean) => void): void;
  close(): Promise<void>;
}

const READY_WAIT_MS = 5_000;

export interface RedisLog {
  warn(details: object, message: string): void;
}

/** Where REDIS_URL points, without its user name and password. */
function targetOf(redisUrl: string): string {
  const url = new URL(redisUrl);
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}

/** Whether a connection is ready, or becomes ready within `ms`. */
function whenReady(connection: { status: string; once(event: 'ready', listener: () => void): unknown }, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (connection.status === 'ready') return resolve(true);
    connection.once('ready', () => resolve(true));
    setTimeout(() => resolve(false), ms).unref();
  });
}

/** ioredis is loaded only when Redis is configured: a single instance spares its memory (about 12 MiB). */
export async function connectRedis(config: Config, log: RedisLog): Promise<RedisClients | undefined> {
  if (!config.redisUrl) return undefined;
  const { Redis } = await import('ioredis');
  const options = { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false };
  const client = new Redis(config.redisUrl, options);
  const subscriber = new Redis(config.redisUrl, options);
  // Errors surface on the commands that fail; the limiter falls back to memory meanwhile.
  client.on('error', () => {});
  subscriber.on('error', () => {});
  let up = client.status === 'ready';
  const listeners: ((up: boolean) => void)[] = [];
  const set = (now: boolean) => {
    if (now === up) return;
    up = now;
    for (const listener of listeners) listener(now);
  };
  client.on('ready', () => set(true));
  client.on('close', () => set(false));
  client.on('end', () => set(false));
  // What went wrong while starting, for the warning below: later errors are the outage's, which
  // the health routes log once when the connection is lost.
  // Per connection: a Redis that came up during the wait (started just after this process) makes
  // that connection's earlier failures to connect no news; an answer of Redis itself (a ReplyError:
  // the refused SELECT of a bad database number, which comes just before ready) is.
  const startErrors = new Map<Redis, Error>();
  const watchStart = (connection: Redis) => {
    const onError = (error: Error) => void (startErrors.has(connection) || startErrors.set(connection, error));
    const onReady = () => void (startErrors.get(connection)?.name === 'ReplyError' || startErrors.delete(connection));
    connection.on('error', onError);
    connection.on('ready', onReady);
    return () => {
      connection.off('error', onError);
      connection.off('ready', onReady);
    };
  };
  const unwatch = [watchStart(client), watchStart(subscriber)];
  // Serving before the connections are ready would count the first requests' limits in memory, the
  // next ones in Redis; a Redis that is away delays the start by this much at most.
  const [clientReady, subscriberReady] = await Promise.all([whenReady(client, READY_WAIT_MS), whenReady(subscriber, READY_WAIT_MS)]);
  // ioredis says ready before the SELECT of REDIS_URL's database number is answered: one round
  // trip more brings its refusal.
  const ready = [client, subscriber].filter((connection) => connection.status === 'ready');
  await Promise.all(ready.map((connection) => connection.ping().catch(() => {})));
  for (const stop of unwatch) stop();
  const startError = startErrors.get(client) ?? startErrors.get(subscriber);
  // A bad database number still connects (ioredis stays on database 0): its error is the news.
  if (!clientReady || !subscriberReady || startError) {
    const redis = targetOf(config.redisUrl);
    const cause = startError?.message ?? 'no answer';
    log.warn(
      { redis, cause },
      clientReady && subscriberReady
        ? `Redis at ${redis} answered with an error at start (${cause}): check REDIS_URL`
        : `Redis at ${redis} is unreachable at start (${cause}): rate limits and invalidations are per instance until it connects; check REDIS_URL`,
    );
  }
  return {
    client,
    subscriber,
    get up() {
      return up;
    },
    onStateChange(listener) {
      listeners.push(listener);
    },
    async subscribed(channel) {
      if (subscriber.status === 'ready') await subscriber.subscribe(channel).catch(() => {});
      else subscriber.once('ready', () => void subscriber.subscribe(channel).catch(() => {}));
    },
    close: async () => {
      client.disconnect();
      subscriber.disconnect();
    },
  };
}
