import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { ForbiddenError, TooManyRequestsError, UnauthorizedError } from '../../src/errors.ts';
import { verifyPassword } from '../../src/security/passwords.ts';
import type { MemberDoc } from '../../projections/members/projection.ts';
import { tokenSchema } from '../credentials/operations.ts';

/** Failed sign-ins allowed per account and per client address in a window, before 429. */
export const SIGN_IN_LIMITS = { perEmail: 5, perAddress: 20, windowMs: 15 * 60_000 };

export const signIn = defineOperation({
  number: 37,
  operationId: 'signIn',
  group: 'Sign-up and sign-in',
  method: 'post',
  path: '/v1/sessions',
  auth: 'anon',
  summary: 'Sign in with email and password; answers a member token',
  description:
    'A wrong pair is 401 with the same body whether or not the email exists. After 5 failures for one email, or 20 from one address, ' +
    'within 15 minutes, sign-in answers 429 with Retry-After. An account whose email is not confirmed yet is 403 (only once the password is right).',
  body: z.object({ Email: z.string().min(1).max(320), Password: z.string().min(1).max(200) }).openapi('SignInRequest'),
  errors: [403, 429],
  response: tokenSchema,
  examples: {
    body: { Email: 'anna.berg@example.com', Password: 'correct horse battery staple' },
    response: {
      Token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZW5hbnQiOiJkZW1vIiwia2luZCI6Im1lbWJlciJ9.c2lnbmF0dXJlLW9mLXRoZS1zZXJ2aWNl',
      ExpiresAt: '2026-11-23T02:00:00.000Z',
    },
  },
  async handler({ body }, ctx) {
    const { limiter, tokens } = ctx.services;
    const email = body.Email.trim().toLowerCase();
    const emailKey = `signin-fail:${ctx.tenant.Tenant}:${email}`;
    const addressKey = `signin-fail:${ctx.tenant.Tenant}@${ctx.ip}`;
    for (const [key, limit] of [
      [emailKey, SIGN_IN_LIMITS.perEmail],
      [addressKey, SIGN_IN_LIMITS.perAddress],
    ] as const) {
      const state = await limiter.peek(key, limit);
      if (!state.allowed) throw new TooManyRequestsError('Too many failed sign-ins; try again later.', state.retryAfterSeconds);
    }
    const member = await ctx.db.collection<MemberDoc>('members').findOne({ Email: email });
    const ok = await verifyPassword(body.Password, member?.PasswordHash ?? null);
    if (!ok || !member) {
      await limiter.hit(emailKey, SIGN_IN_LIMITS.perEmail, SIGN_IN_LIMITS.windowMs);
      await limiter.hit(addressKey, SIGN_IN_LIMITS.perAddress, SIGN_IN_LIMITS.windowMs);
      throw new UnauthorizedError('Wrong email or password.');
    }
    if (!member.Validated) throw new ForbiddenError('Confirm your email address before signing in.');
    await limiter.reset(emailKey);
    return tokens.issue('member', ctx.tenant.Tenant, String(member.Id));
  },
});

export const sessionOperations = [signIn];
