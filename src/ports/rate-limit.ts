/**
 * Rate limits and short-lived keys. Production: Redis (INCR + PEXPIRE in one MULTI). Embedded: in-process.
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
