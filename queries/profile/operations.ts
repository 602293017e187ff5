// The signed-in member's profile (`GET /v1/me`), from the member the token names; declared once (defineOperation)
// for routing, validation and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { memberDtoExample, toMemberDto, memberDtoSchema } from '../../commands/profile/dto.ts';
import { profileOf } from '../../projections/profile/index.ts';

export const getProfile = defineOperation({
  route: { number: 42, operationId: 'getProfile', group: 'Bidder profile', method: 'get', path: '/v1/me', auth: 'member' },
  docs: {
    summary: "The signed-in member's profile",
    description:
      'Every field of the member profile, as last stored (`PUT /v1/me`); fields the member has not filled in, and those the service does not hold, are null. ' +
      '`VatFree` is the result of the background VAT check of `VATNumber` (false until a check of the current number says otherwise); ' +
      '`SmsVerificationCompleted` says whether the current `Phone` was verified by SMS. Never carries password material or confirmation keys.',
    examples: { response: memberDtoExample },
  },
  output: { response: memberDtoSchema },
  async handler(_input, ctx) {
    return toMemberDto(ctx.member, await profileOf(ctx.db, ctx.member.Id));
  },
});

export const profileQueryOperations = [getProfile];
