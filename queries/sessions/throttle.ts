import { createHash } from 'node:crypto';
import { TooManyRequestsError } from '../../src/errors.ts';
import type { RateLimiter } from '../../src/ports/rate-limit.ts';

/**
 * Wrong passwords allowed before sign-in answers 429 (per tenant), fixed windows:
 * - per account and client address together: so a stranger elsewhere cannot lock the member out;
 * - per client address, whatever the accounts: one address trying many accounts;
 * - per account from all addresses together: a distributed guess at one account.
 */
export const SIGN_IN_LIMITS = {
  perAccountAndAddress: { limit: 5, windowMs: 15 * 60_000 },
  perAddress: { limit: 20, windowMs: 15 * 60_000 },
  perAccount: { limit: 100, windowMs: 60 * 60_000 },
};
export type SignInLimits = typeof SIGN_IN_LIMITS;

export interface SignInReservation {
  /** The attempt was not a wrong password (the right one, or an error before the check): it does not count. */
  release(): Promise<void>;
}

const hashed = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);

/**
 * Reserves one wrong-password attempt on every limit BEFORE the password is checked, so however many
 * requests arrive at once, no more passwords are checked than the limits allow: the hit is atomic (Redis
 * INCR), and a request whose hit goes over a limit is refused (429) without a check. The refused request's
 * own hits are taken back, so refused requests never use up a limit (a flood from one address does not eat
 * the account's budget from all addresses). A wrong password keeps its reservation: it is the count. A right
 * password gives its reservation back, but does not forget earlier failures: the limits hold per window,
 * whatever succeeded in between.
 */
export async function reserveSignIn(
  limiter: RateLimiter,
  attempt: { tenant: string; email: string; ip: string },
  limits: SignInLimits = SIGN_IN_LIMITS,
): Promise<SignInReservation> {
  const account = hashed(attempt.email);
  const address = attempt.ip;
  const keys: Array<[string, { limit: number; windowMs: number }]> = [
    [`signin-fail:${attempt.tenant}:${account}@${address}`, limits.perAccountAndAddress],
    [`signin-fail:${attempt.tenant}@${address}`, limits.perAddress],
    [`signin-fail:${attempt.tenant}:${account}`, limits.perAccount],
  ];
  const held: string[] = [];
  const releaseAll = async () => {
    for (const key of held.splice(0)) await limiter.release(key);
  };
  for (const [key, rule] of keys) {
    // A hit that fails (no room to count it) gives back those taken: the attempt was not checked.
    const decision = await limiter.hit(key, rule.limit, rule.windowMs).catch(async (error: unknown) => {
      await releaseAll().catch(() => undefined);
      throw error;
    });
    held.push(key);
    if (!decision.allowed) {
      await releaseAll();
      throw new TooManyRequestsError('Too many failed sign-ins; try again later.', decision.retryAfterSeconds, 'too-many-attempts');
    }
  }
  return { release: releaseAll };
}
