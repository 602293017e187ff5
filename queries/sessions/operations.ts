// Sign-in with email and password for a member token (`POST /v1/sessions`), throttled; declared once
// (defineOperation) for routing, validation and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { ForbiddenError, UnauthorizedError } from '../../src/errors.ts';
import { verifyPassword } from '../../src/security/passwords.ts';
import { memberByEmail, type MemberDoc } from '../../projections/members/index.ts';
import { normalizeEmail } from '../../commands/members/events.ts';
import { tokenSchema } from '../credentials/dto.ts';
import { reserveSignIn } from './throttle.ts';

export { SIGN_IN_LIMITS } from './throttle.ts';

export const signIn = defineOperation({
  route: { number: 37, operationId: 'signIn', group: 'Sign-up and sign-in', method: 'post', path: '/v1/sessions', auth: 'anon' },
  docs: {
    summary: 'Sign in with email and password; answers a member token',
    description:
      'A wrong pair is 401 with the same body, after the same time, whether or not the email exists. Wrong passwords are limited (429 with Retry-After, ' +
      'even for the right password, until the window ends): 5 per account from one client address in 15 minutes, 20 from one address in 15 minutes, ' +
      'and 100 per account from all addresses in an hour; parallel requests never get more passwords checked than that. ' +
      'An account whose email is not confirmed yet is 403 (only once the password is right). A password reset ends every session: tokens issued before it are 401.',
    errors: [403, 429],
    problems: ['invalid-credentials', 'email-not-confirmed', 'too-many-attempts'],
    examples: {
      body: { Email: 'anna.berg@example.com', Password: 'correct horse battery staple' },
      response: {
        Token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZW5hbnQiOiJkZW1vIiwia2luZCI6Im1lbWJlciJ9.c2lnbmF0dXJlLW9mLXRoZS1zZXJ2aWNl',
        ExpiresAt: '2026-11-23T02:00:00.000Z',
      },
    },
  },
  input: { body: z.object({ Email: z.string().min(1).max(320), Password: z.string().min(1).max(200) }).openapi('SignInRequest') },
  output: { response: tokenSchema },
  async handler({ body }, ctx) {
    const email = normalizeEmail(body.Email);
    // The attempt is counted before the slow check, and taken back unless the password was wrong.
    const reservation = await reserveSignIn(ctx.limiter, { tenant: ctx.tenant.Tenant, email, ip: ctx.ip });
    let member: MemberDoc | null;
    let ok: boolean;
    try {
      member = await memberByEmail(ctx.db, email);
      ok = await verifyPassword(body.Password, member?.PasswordHash ?? null);
    } catch (error) {
      await reservation.release();
      throw error;
    }
    if (!ok || !member) throw new UnauthorizedError('invalid-credentials', 'Wrong email or password.');
    await reservation.release();
    if (!member.Validated) throw new ForbiddenError('email-not-confirmed', 'Confirm your email address before signing in.');
    // The token remembers the sessions' start the checked hash belongs to: a later reset voids it.
    const sessionsValidFrom = member.SessionsValidFrom ? Date.parse(member.SessionsValidFrom) : null;
    return ctx.tokens.issue('member', ctx.tenant.Tenant, String(member.Id), { sessionsValidFrom });
  },
});

export const sessionsQueryOperations = [signIn];
