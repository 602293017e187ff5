import type { EventLog } from '../../src/ports/event-log.ts';
import type { RateLimiter } from '../../src/ports/rate-limit.ts';
import { TooManyRequestsError } from '../../src/errors.ts';
import { memberEvents, memberStreamId } from './events.ts';

/*
 * What other features may use of members besides their events: the account operations' rate limits (the
 * availability query counts against them too) and whether a member is active (intake of other features).
 */

/** A fixed window: at most `limit` in `windowMs`. */
export interface Limit {
  limit: number;
  windowMs: number;
}

const HOUR = 60 * 60_000;

/**
 * The rate limits of the account operations (per tenant). Per client address ones answer 429 with
 * Retry-After; the per-account limit on reset mails is silent (the answer must not tell whether the
 * account exists), a request over it simply sends no mail.
 */
export const MEMBER_LIMITS = {
  /** POST /v1/members per client address. */
  signUpsPerAddress: { limit: 10, windowMs: HOUR },
  /** GET /v1/members/availability per client address. */
  availabilityPerAddress: { limit: 60, windowMs: HOUR },
  /** POST /v1/members/confirmation per client address. */
  confirmationsPerAddress: { limit: 30, windowMs: HOUR },
  /** POST /v1/password-resets per client address (429). */
  resetRequestsPerAddress: { limit: 10, windowMs: HOUR },
  /** Reset mails per email address: requests beyond it are answered alike and send nothing. */
  resetMailsPerAccount: { limit: 3, windowMs: HOUR },
  /** POST /v1/password-resets/confirmation per client address. */
  resetConfirmationsPerAddress: { limit: 20, windowMs: HOUR },
} satisfies Record<string, Limit>;

/** Counts one hit; over the limit it is a 429 with Retry-After. */
export async function enforceLimit(limiter: RateLimiter, key: string, rule: Limit, detail: string): Promise<void> {
  const decision = await limiter.hit(key, rule.limit, rule.windowMs);
  if (!decision.allowed) throw new TooManyRequestsError(detail, decision.retryAfterSeconds);
}

/** Whether the member exists (signed up, not removed): records of the bidder's account need one. */
export async function memberIsActive(log: EventLog, tenant: string, memberId: number): Promise<boolean> {
  let active = false;
  for (const recorded of await log.readStream(memberStreamId(tenant, memberId))) {
    const event = memberEvents.read(recorded);
    if (event.type === 'MemberSignedUp') active = true;
    if (event.type === 'MemberRemoved') return false;
  }
  return active;
}
