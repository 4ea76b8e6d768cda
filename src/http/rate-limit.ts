import type { FastifyReply } from 'fastify';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { RedisClients } from '../redis.ts';
import { RateLimitedError } from './app-errors.ts';

export type LimiterName = 'general' | 'auth' | 'widget';

export type Limiters = Record<LimiterName, RateLimiterAbstract>;

function limiter(name: LimiterName, points: number, duration: number, config: Config, redis?: RedisClients) {
  const memory = new RateLimiterMemory({ points, duration, keyPrefix: name });
  if (!redis) return memory;
  return new RateLimiterRedis({
    storeClient: redis.client,
    keyPrefix: `${config.redisPrefix}rl:${name}`,
    points,
    duration,
    // A key over its limit is refused from memory until its window ends: no Redis trip for abusers.
    inMemoryBlockOnConsumed: points + 1,
    inMemoryBlockDuration: duration,
    rejectIfRedisNotReady: true,
    // While Redis is unreachable each instance limits on its own rather than failing requests.
    insuranceLimiter: memory,
  });
}

export function createLimiters(config: Config, redis?: RedisClients): Limiters {
  return {
    general: limiter('general', config.rateLimitMax, config.rateLimitWindowS, config, redis),
    auth: limiter('auth', config.authRateLimitPerMin, 60, config, redis),
    widget: limiter('widget', config.widgetRateLimitPerMin, 60, config, redis),
  };
}

/** Consumes one point and sets the `X-RateLimit-*` headers; throws 429 past the limit. */
export async function consume(limiter: RateLimiterAbstract, key: string, reply: FastifyReply): Promise<void> {
  let result: RateLimiterRes;
  let limited = false;
  try {
    result = await limiter.consume(key);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    result = error;
    limited = true;
  }
  const resetSeconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
  reply.headers({
    'x-ratelimit-limit': limiter.points,
    'x-ratelimit-remaining': Math.max(0, result.remainingPoints),
    'x-ratelimit-reset': resetSeconds,
  });
  if (limited) throw new RateLimitedError(resetSeconds);
}
