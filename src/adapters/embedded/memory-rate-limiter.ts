/**
 * Embedded RateLimiter: fixed windows per key, in process memory (a single-process deployment only;
 * counts are lost on restart). A window starts at a key's first hit and lasts windowMs; every hit counts,
 * refused ones included (like Redis INCR).
 *
 * Memory stays bounded without a timer: expired entries are swept lazily (at most once per sweepMs, on a
 * hit), and when the map holds maxKeys keys a new key sweeps expired entries (at most once a second)
 * and else evicts the oldest window.
 *
 * peek(key, limit).allowed says whether a hit now would be allowed (count < limit).
 * retryAfterSeconds is the whole seconds (>= 1) until the key's window resets, 0 when no window is open.
 */
import { rateLimitRules, type RateDecision, type RateLimiter } from '../../ports/rate-limit.ts';

export interface MemoryRateLimiterOptions {
  /** Clock in ms (default Date.now), for tests. */
  now?: () => number;
  /** Most keys held at once (default 100,000). */
  maxKeys?: number;
  /** Least time between two sweeps of expired entries (default 60,000 ms). */
  sweepMs?: number;
}

interface Window {
  count: number;
  resetAt: number;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly now: () => number;
  private readonly maxKeys: number;
  private readonly sweepMs: number;
  private lastSweep: number;

  /** Takes options, or just a clock: `new MemoryRateLimiter(() => fakeNow)`. */
  constructor(options: MemoryRateLimiterOptions | (() => number) = {}) {
    const opts = typeof options === 'function' ? { now: options } : options;
    this.now = opts.now ?? Date.now;
    this.maxKeys = opts.maxKeys ?? 100_000;
    this.sweepMs = opts.sweepMs ?? 60_000;
    if (!Number.isInteger(this.maxKeys) || this.maxKeys < 1) throw new RangeError('MemoryRateLimiter: maxKeys must be an integer >= 1');
    this.lastSweep = this.now();
  }

  /** Keys held (expired ones not yet swept included). */
  get size(): number {
    return this.windows.size;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    rateLimitRules.checkLimit(limit, 'MemoryRateLimiter');
    if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError('MemoryRateLimiter: windowMs must be > 0');
    const now = this.now();
    if (now - this.lastSweep >= this.sweepMs) this.sweep(now);

    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (window)
        this.windows.delete(key); // re-inserted below: the map stays ordered by window start
      else if (this.windows.size >= this.maxKeys) this.makeRoom(now);
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return {
      allowed: window.count <= limit,
      count: window.count,
      retryAfterSeconds: rateLimitRules.retryAfterSeconds(window.resetAt - now),
    };
  }

  async peek(key: string, limit: number): Promise<RateDecision> {
    rateLimitRules.checkLimit(limit, 'MemoryRateLimiter');
    const now = this.now();
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) return { allowed: limit > 0, count: 0, retryAfterSeconds: 0 };
    return {
      allowed: window.count < limit,
      count: window.count,
      retryAfterSeconds: rateLimitRules.retryAfterSeconds(window.resetAt - now),
    };
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  async release(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.resetAt > this.now() && window.count > 0) window.count -= 1;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now) this.windows.delete(key);
    }
  }

  private makeRoom(now: number): void {
    // A full sweep is O(keys): at most once a second here, so a flood of new keys stays O(1) per hit.
    if (now - this.lastSweep >= Math.min(1000, this.sweepMs)) this.sweep(now);
    // Still full: drop the oldest windows (Map iteration follows insertion, i.e. window start, order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}
