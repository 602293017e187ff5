/**
 * RateLimiter in Redis, shared by every process that uses the same Redis and prefix.
 * `new RedisRateLimiter({ url, prefix })` opens its own connection (closed by `close()`);
 * `new RedisRateLimiter({ redis, prefix })` uses a connection the caller owns.
 *
 * Same semantics as the embedded MemoryRateLimiter: a fixed window opened by a key's first hit, every hit
 * counted (refused ones included), allowed = count <= limit, retryAfterSeconds a whole number >= 1 while a
 * window is open. Each operation is one atomic step in Redis, so parallel hits from many processes count
 * exactly:
 * - hit: one Lua script, INCR then PEXPIRE only when the key has no expiry yet (a new window; the same as
 *   PEXPIRE NX on Redis 7, written so it also runs on Redis 6). Refused hits do not extend the window.
 * - peek: GET and PTTL in one MULTI.
 * - reset: DEL. release: one Lua script, DECR unless the count is already 0 (the window keeps its expiry).
 * Keys: `${prefix}:${key}`; they expire with their window, so nothing needs sweeping.
 */
import { Redis } from 'ioredis';
import { rateLimitRules, type RateDecision, type RateLimiter } from '../../ports/rate-limit.ts';
import { countRedisRoundTrips } from '../../round-trips.ts';

export type RedisRateLimiterOptions =
  { url: string; redis?: undefined; prefix?: string } | { redis: Redis; url?: undefined; prefix?: string };

// KEYS[1] the counter, ARGV[1] the window in ms. Answers { count, ms left in the window }.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`;

// KEYS[1] the counter. Takes one hit back, never below zero, keeping the window's expiry.
const RELEASE_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count and count > 0 then
  redis.call('DECR', KEYS[1])
end
return 0
`;

interface RateScripts {
  rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
  rateLimitRelease(key: string): Promise<number>;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis & RateScripts;
  private readonly ownsConnection: boolean;
  private readonly prefix: string;

  constructor(options: RedisRateLimiterOptions) {
    this.prefix = options.prefix ?? 'bidder:rate';
    if (typeof this.prefix !== 'string' || this.prefix === '') {
      throw new TypeError('RedisRateLimiter: prefix must be a non-empty string');
    }
    if (options.redis) {
      this.redis = options.redis as Redis & RateScripts;
      this.ownsConnection = false;
    } else {
      if (typeof options.url !== 'string' || options.url === '') {
        throw new TypeError('RedisRateLimiter: url or redis is required');
      }
      // A rate-limited request fails after a few reconnect tries rather than hanging while Redis is down.
      this.redis = countRedisRoundTrips(new Redis(options.url, { maxRetriesPerRequest: 3 })) as Redis & RateScripts;
      this.ownsConnection = true;
    }
    // defineCommand sends EVALSHA and falls back to EVAL once per connection when Redis lacks the script.
    if (typeof this.redis.rateLimitHit !== 'function') {
      this.redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
      this.redis.defineCommand('rateLimitRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    }
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    rateLimitRules.checkLimit(limit, 'RedisRateLimiter');
    if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError('RedisRateLimiter: windowMs must be > 0');
    const [count, ttl] = await this.redis.rateLimitHit(this.key(key), Math.ceil(windowMs));
    return { allowed: count <= limit, count, retryAfterSeconds: rateLimitRules.retryAfterSeconds(ttl) };
  }

  async peek(key: string, limit: number): Promise<RateDecision> {
    rateLimitRules.checkLimit(limit, 'RedisRateLimiter');
    const replies = (await this.redis.multi().get(this.key(key)).pttl(this.key(key)).exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    const count = Number(replies[0]?.[1] ?? 0);
    const ttl = Number(replies[1]?.[1] ?? -2);
    // No key (-2), or one without expiry (-1, never written by hit): no open window.
    if (ttl < 0) return { allowed: limit > 0, count: 0, retryAfterSeconds: 0 };
    return { allowed: count < limit, count, retryAfterSeconds: rateLimitRules.retryAfterSeconds(ttl) };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.key(key));
  }

  async release(key: string): Promise<void> {
    await this.redis.rateLimitRelease(this.key(key));
  }

  /** Closes the connection if this limiter opened it. */
  async close(): Promise<void> {
    if (!this.ownsConnection || this.redis.status === 'end') return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  private key(key: string): string {
    return `${this.prefix}:${key}`;
  }
}
