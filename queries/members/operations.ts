// Whether an email address can still sign up (`GET /v1/members/availability`), read from the read models; declared
// once (defineOperation) for routing, validation and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { memberByEmail } from '../../projections/members/index.ts';
import { enforceLimit, MEMBER_LIMITS } from '../../commands/members/rules.ts';

export const memberAvailability = defineOperation({
  route: {
    number: 36,
    operationId: 'getEmailAvailability',
    group: 'Sign-up and sign-in',
    method: 'get',
    path: '/v1/members/availability',
    auth: 'anon',
  },
  docs: {
    summary: 'Whether an email address can still sign up',
    description:
      '`Available` is false when the address (compared without regard to case) belongs to an account of the auction house. A value that is not an email address is 400. ' +
      'At most 60 look-ups an hour from one client address (429 with Retry-After).',
    errors: [429],
    problems: ['rate-limited'],
    examples: { response: { Available: true } },
  },
  input: { query: z.object({ email: z.email().max(320).openapi({ description: 'The email address to look up.' }) }) },
  output: {
    response: z
      .object({ Available: z.boolean().openapi({ description: 'True when no account of the house has this address.' }) })
      .openapi('EmailAvailability'),
  },
  async handler({ query }, ctx) {
    await enforceLimit(
      ctx.limiter,
      `members:availability:${ctx.tenant.Tenant}@${ctx.ip}`,
      MEMBER_LIMITS.availabilityPerAddress,
      'Too many look-ups; try again later.',
    );
    const taken = await memberByEmail(ctx.db, query.email);
    return { Available: taken === null };
  },
});

/** The HTTP operations of members that answer from read models. */
export const membersQueryOperations = [memberAvailability];
