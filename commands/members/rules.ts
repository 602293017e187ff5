import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import type { EventLog } from '../../src/ports/event-log.ts';
import type { RateLimiter } from '../../src/ports/rate-limit.ts';
import { z } from '../../src/http/schemas.ts';
import { TooManyRequestsError, ValidationError } from '../../src/errors.ts';
import { memberEvents, memberStreamId, normalizeEmail } from './events.ts';

/*
 * The rules of members' accounts that their operations, jobs and intake share: passwords, phone numbers, the
 * account operations' rate limits. Other features may use the rate limits (the availability query counts
 * against them too) and whether a member is active (intake of other features).
 */

/** A new password (sign-up, reset): 10–128 characters, and not the email address. */
export const PASSWORD_LIMITS = { min: 10, max: 128 } as const;
export const newPassword = (description: string) =>
  z.string().min(PASSWORD_LIMITS.min).max(PASSWORD_LIMITS.max).openapi({ description, format: 'password' });

/** The refinement of a body with `Email` and a new `Password`: the password may not be the address. */
export function passwordIsNotEmail(body: { Email: string; Password: string }, ctx: z.RefinementCtx) {
  if (body.Password.trim().toLowerCase() === normalizeEmail(body.Email))
    ctx.addIssue({ code: 'custom', path: ['Password'], message: 'must not be the email address' });
}

/** An email address in a rate-limit key: hashed, so the limiter's store holds no addresses. */
export const emailKey = (email: string) => createHash('sha256').update(normalizeEmail(email), 'utf8').digest('hex').slice(0, 32);

/**
 * A phone number as stored: E.164 (a number without a country code is read as one of the house's country),
 * empty when none is given. Not a phone number: 400 naming the field.
 */
export function normalizePhone(raw: string | null | undefined, country: string | null, field = 'body.Phone'): string {
  const text = raw?.trim() ?? '';
  if (text === '') return '';
  const region = country && isSupportedCountry(country) ? (country as CountryCode) : undefined;
  const parsed = parsePhoneNumberFromString(text, region ? { defaultCountry: region } : undefined);
  if (!parsed?.isValid())
    throw new ValidationError('The phone number is not valid.', [
      { field, message: 'not a phone number: give it with its country code (+31 6 12345678)' },
    ]);
  return parsed.number;
}

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
