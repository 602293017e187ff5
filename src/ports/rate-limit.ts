/**
 * Rate limits, shared by every process of a deployment. Production: Redis (a Lua script: INCR and the
 * expiry in one step). Embedded: a SQLite file in the data folder (every process on one DATA_DIR), or in
 * memory for a single process in tests.
 */
export interface RateDecision {
  allowed: boolean;
  /** Hits counted in the current window, this one included. */
  count: number;
  /** Seconds until the window resets (for Retry-After). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts a hit on key in a fixed window and says whether it is within limit. */
  hit(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  /** Reads without counting. */
  peek(key: string, limit: number): Promise<RateDecision>;
  reset(key: string): Promise<void>;
  /**
   * Takes one hit back (Redis: DECR), never below zero: a reservation made with `hit` before slow work
   * (a password check) that turned out not to count.
   */
  release(key: string): Promise<void>;
}

/** The port's rules every adapter applies the same way. */
export const rateLimitRules = {
  /** Whole seconds until a window resets, at least 1 (a `Retry-After` of 0 would invite an immediate retry). */
  retryAfterSeconds(msLeft: number): number {
    return Math.max(1, Math.ceil(msLeft / 1000));
  },
  checkLimit(limit: number, adapter: string): void {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`${adapter}: limit must be an integer >= 0`);
  },
};
