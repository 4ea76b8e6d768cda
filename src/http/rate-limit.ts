import type { FastifyReply } from 'fastify';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { RedisClients } from '../redis.ts';
import { RateLimitedError } from './app-errors.ts';
import { after, type MaybePromise } from '../lib/maybe-promise.ts';
import { TtlMap } from '../lib/ttl-map.ts';

/** The password routes each have their own per-IP budget, so that one onboarding does not exhaust another's. */
export type ThrottleName = 'login' | 'signup' | 'password' | 'reset' | 'accept' | 'widget' | 'views';
export type LimiterName = 'general' | 'owner' | 'loginFailures' | 'loginEmail' | ThrottleName;

/** One request counted against a key's window. */
export interface Count {
  remaining: number;
  /** Whole seconds until the window resets, at least 1. */
  resetSeconds: number;
  limited: boolean;
}

export interface Limiter {
  readonly points: number;
  count(key: string): MaybePromise<Count>;
  /** The key's window as it stands, counting nothing: `limited` when the next count would be refused. */
  peek(key: string): MaybePromise<Count>;
  /** Takes one count back (an attempt that turned out not to be what the limit counts). */
  refund(key: string): MaybePromise<void>;
}

export type Limiters = Record<LimiterName, Limiter>;

const resetSecondsOf = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
/** Windows open at once per limiter, past which the oldest are forgotten (their keys start afresh). */
const MAX_WINDOWS = 1_000_000;

/**
 * Fixed windows counted in this process, synchronously: the limit of a request costs a map lookup
 * and no promise, where rate-limiter-flexible's memory limiter answers every count with one and so
 * kept the whole auth hook asynchronous. A window starts at its key's first request and is an entry
 * of a `TtlMap` that lives as long as the window: ended windows are dropped as new ones open, so
 * memory stays bounded by the keys of one window (and by MAX_WINDOWS under a flood of them).
 */
export class MemoryLimiter implements Limiter {
  private readonly windows: TtlMap<string, { used: number; endsAt: number }>;

  constructor(
    readonly points: number,
    private readonly durationMs: number,
  ) {
    this.windows = new TtlMap(durationMs, MAX_WINDOWS);
  }

  count(key: string, now = Date.now()): Count {
    const window = this.windows.get(key, now)?.value ?? this.windows.set(key, { used: 0, endsAt: now + this.durationMs }, now);
    window.used++;
    return {
      remaining: Math.max(0, this.points - window.used),
      resetSeconds: resetSecondsOf(window.endsAt - now),
      limited: window.used > this.points,
    };
  }

  peek(key: string, now = Date.now()): Count {
    const window = this.windows.get(key, now)?.value;
    if (!window) return { remaining: this.points, resetSeconds: resetSecondsOf(this.durationMs), limited: false };
    return {
      remaining: Math.max(0, this.points - window.used),
      resetSeconds: resetSecondsOf(window.endsAt - now),
      limited: window.used >= this.points,
    };
  }

  refund(key: string, now = Date.now()): void {
    const window = this.windows.get(key, now)?.value;
    if (window && window.used > 0) window.used--;
  }

  /** Keys with a window open or not yet dropped. */
  get keys(): number {
    return this.windows.size;
  }
}

/** Counts shared by every instance through Redis (rate-limiter-flexible), each instance on its own while Redis is away. */
class SharedLimiter implements Limiter {
  private readonly limiter: RateLimiterRedis;

  constructor(
    readonly points: number,
    name: LimiterName,
    durationS: number,
    config: Config,
    redis: RedisClients,
  ) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis.client,
      keyPrefix: `${config.redisPrefix}rl:${name}`,
      points,
      duration: durationS,
      // A key over its limit is refused from memory until its window ends: no Redis trip for abusers.
      inMemoryBlockOnConsumed: points + 1,
      inMemoryBlockDuration: durationS,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ points, duration: durationS, keyPrefix: name }),
    });
  }

  async count(key: string): Promise<Count> {
    const toCount = (result: RateLimiterRes, limited: boolean): Count => ({
      remaining: Math.max(0, result.remainingPoints),
      resetSeconds: resetSecondsOf(result.msBeforeNext),
      limited,
    });
    try {
      return toCount(await this.limiter.consume(key), false);
    } catch (error) {
      if (error instanceof RateLimiterRes) return toCount(error, true);
      throw error;
    }
  }

  async peek(key: string): Promise<Count> {
    const result = await this.limiter.get(key);
    if (!result) return { remaining: this.points, resetSeconds: resetSecondsOf(this.limiter.duration * 1000), limited: false };
    return {
      remaining: Math.max(0, result.remainingPoints),
      resetSeconds: resetSecondsOf(result.msBeforeNext),
      limited: result.consumedPoints >= this.points,
    };
  }

  async refund(key: string): Promise<void> {
    await this.limiter.reward(key, 1);
  }
}

function limiter(name: LimiterName, points: number, durationS: number, config: Config, redis?: RedisClients): Limiter {
  return redis ? new SharedLimiter(points, name, durationS, config, redis) : new MemoryLimiter(points, durationS * 1000);
}

export function createLimiters(config: Config, redis?: RedisClients): Limiters {
  return {
    general: limiter('general', config.rateLimitMax, config.rateLimitWindowS, config, redis),
    // Every token of one user or partner together: minting tokens does not multiply the limit.
    owner: limiter('owner', config.ownerRateLimitMax, config.rateLimitWindowS, config, redis),
    login: limiter('login', config.authRateLimitPerMin, 60, config, redis),
    signup: limiter('signup', config.authRateLimitPerMin, 60, config, redis),
    password: limiter('password', config.authRateLimitPerMin, 60, config, redis),
    reset: limiter('reset', config.authRateLimitPerMin, 60, config, redis),
    accept: limiter('accept', config.authRateLimitPerMin, 60, config, redis),
    // Failed logins (src/modules/auth/login-limits.ts): per email address from one client IP, and
    // per email address from every IP, a slow guess at one password from many addresses.
    loginFailures: limiter('loginFailures', config.loginFailuresPerIpPerHour, 3600, config, redis),
    loginEmail: limiter('loginEmail', config.loginEmailRateLimitPerHour, 3600, config, redis),
    widget: limiter('widget', config.widgetRateLimitPerMin, 60, config, redis),
    // The banner's page-view beacons, one per page: a budget of their own, so that many page views
    // from one address (a carrier's NAT) never use up what its visitors' consents need.
    views: limiter('views', config.widgetRateLimitPerMin, 60, config, redis),
  };
}

/**
 * Counts one request against both (a token's window and its owner's): the headers show the stricter,
 * and past either limit the request is refused.
 */
export function consumeBoth(first: Limiter, firstKey: string, second: Limiter, secondKey: string, reply: FastifyReply): MaybePromise<void> {
  return after(first.count(firstKey), (a) => after(second.count(secondKey), (b) => {
    const [limiter, count] = a.limited || (!b.limited && a.remaining <= b.remaining) ? [first, a] : [second, b];
    reply.headers({ 'x-ratelimit-limit': limiter.points, 'x-ratelimit-remaining': count.remaining, 'x-ratelimit-reset': count.resetSeconds });
    if (count.limited) throw new RateLimitedError(count.resetSeconds);
  }));
}

/**
 * Counts a request against one more limit than its route's (a login's per-email budget after the
 * per-IP one): the headers already set change only where this limit is the stricter, or refuses.
 */
export function consumeToo(limiter: Limiter, key: string, reply: FastifyReply): MaybePromise<Count> {
  return after(limiter.count(key), (count) => {
    showOrRefuse(limiter, count, reply);
    return count;
  });
}

/** Shows a limit's count in the headers where it is the stricter, and refuses when it is used up. */
export function showOrRefuse(limiter: Limiter, { remaining, resetSeconds, limited }: Count, reply: FastifyReply): void {
  const shown = Number(reply.getHeader('x-ratelimit-remaining'));
  if (limited || !(shown <= remaining)) {
    reply.headers({ 'x-ratelimit-limit': limiter.points, 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': resetSeconds });
  }
  if (limited) throw new RateLimitedError(resetSeconds);
}

/** Counts one request against `key`, sets the `X-RateLimit-*` headers, and throws 429 past the limit. */
export function consume(limiter: Limiter, key: string, reply: FastifyReply): MaybePromise<void> {
  return after(limiter.count(key), ({ remaining, resetSeconds, limited }) => {
    reply.headers({ 'x-ratelimit-limit': limiter.points, 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': resetSeconds });
    if (limited) throw new RateLimitedError(resetSeconds);
  });
}
