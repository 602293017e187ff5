// Verifying the profile's phone with a texted code (`POST /v1/me/phone-verification` and its `/confirmation`),
// decided on the member's phone stream; declared once (defineOperation) for routing, validation and the OpenAPI
// document.
import { parsePhoneNumberFromString, isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { defineOperation, type MemberContext } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { ValidationError } from '../../src/errors.ts';
import { OneTimeKeys } from '../../src/security/keys.ts';
import { profiles } from '../../projections/profile/index.ts';
import { phoneVerificationDecider, MAX_FAILED_ATTEMPTS } from './decide.ts';
import { phoneStreamId } from './events.ts';
import { PHONE_CODE_PURPOSE } from './rules.ts';

/**
 * The profile's phone in E.164, or null when the profile has none. A phone kept as typed (an imported
 * account's) is read with the house's country as the default region; one that still does not parse is a 400.
 */
async function profilePhone(ctx: MemberContext): Promise<string | null> {
  const profile = await profiles(ctx.db).findById(String(ctx.member.Id));
  const phone = profile ? profile.Phone : ctx.member.Phone.trim() || null;
  if (phone === null) return null;
  const region = ctx.tenant.Country && isSupportedCountry(ctx.tenant.Country) ? (ctx.tenant.Country as CountryCode) : undefined;
  const parsed = parsePhoneNumberFromString(phone, region ? { defaultCountry: region } : undefined);
  if (!parsed?.isValid())
    throw new ValidationError(
      "The profile's phone number is not one a text can be sent to; correct it first (PUT /v1/me).",
      [{ field: 'profile.Phone', message: 'not a phone number' }],
      { code: 'phone-number-required' },
    );
  return parsed.number;
}

const phoneField = z
  .string()
  .max(16)
  .regex(/^\+[1-9]\d{6,14}$/)
  .openapi({ description: 'E.164.' });

export const requestPhoneVerification = defineOperation({
  route: {
    number: 40,
    operationId: 'requestPhoneVerification',
    group: 'Sign-up and sign-in',
    method: 'post',
    path: '/v1/me/phone-verification',
    auth: 'member',
  },
  docs: {
    summary: "Text a verification code to the profile's phone",
    description:
      "No body. Sends a 6-digit code by SMS to the profile's `Phone` (set it with `PUT /v1/me`); confirm it with `POST /v1/me/phone-verification/confirmation`. " +
      'The code is valid for 10 minutes and once; asking again sends a new code and voids the previous one. At most 3 codes per member an hour (429 with Retry-After). ' +
      'No phone in the profile, or one that is not a phone number: 400.',
    errors: [429],
    problems: ['phone-number-required', 'rate-limited'],
    examples: { response: { Phone: '+46701234567', ExpiresAt: '2026-11-21T12:10:00.000Z' } },
  },
  output: {
    response: z
      .object({
        Phone: phoneField,
        ExpiresAt: z.string().max(30).openapi({ format: 'date-time', description: 'Until when the code is valid.' }),
      })
      .openapi('PhoneVerificationSent'),
  },
  async handler(_input, ctx) {
    const phone = await profilePhone(ctx);
    if (phone === null)
      throw new ValidationError(
        'The profile has no phone number; add one first (PUT /v1/me).',
        [{ field: 'profile.Phone', message: 'no phone number in the profile' }],
        { code: 'phone-number-required' },
      );
    const result = await ctx.commands.run(phoneStreamId(ctx.tenant.Tenant, ctx.member.Id), phoneVerificationDecider, {
      type: 'IssueCode',
      tenant: ctx.tenant.Tenant,
      memberId: ctx.member.Id,
      codeId: ctx.keys.newId(),
      phone,
      at: ctx.now.toISOString(),
    });
    const issued = result.events[0];
    if (issued?.type !== 'PhoneVerificationCodeIssued') throw new Error('no code issued');
    return { Phone: phone, ExpiresAt: issued.data.expiresAt };
  },
});

export const confirmPhoneVerification = defineOperation({
  route: {
    number: 41,
    operationId: 'confirmPhoneVerification',
    group: 'Sign-up and sign-in',
    method: 'post',
    path: '/v1/me/phone-verification/confirmation',
    auth: 'member',
  },
  docs: {
    summary: 'Confirm the phone with the code texted to it',
    problems: ['verification-code-invalid', 'phone-number-required'],
    description:
      'The code of the latest text (`POST /v1/me/phone-verification`). The right code sets `SmsVerificationCompleted` for the phone it was sent to, ' +
      "while that is still the profile's phone. A wrong, expired or used code is a 400; wrong codes are counted, and the 5th voids the code (request a new one).",
    examples: { body: { Code: '042917' }, response: { Phone: '+46701234567', SmsVerificationCompleted: true } },
  },
  input: {
    body: z
      .object({
        Code: z
          .string()
          .regex(/^\d{6}$/, 'the 6 digits of the text')
          .max(6)
          .openapi({ description: 'The 6 digits of the text.' }),
      })
      .openapi('PhoneVerificationConfirmation'),
  },
  output: { response: z.object({ Phone: phoneField, SmsVerificationCompleted: z.boolean() }).openapi('PhoneVerificationResult') },
  async handler({ body }, ctx) {
    const currentPhone = await profilePhone(ctx);
    const keys = ctx.keys;
    const result = await ctx.commands.run(
      phoneStreamId(ctx.tenant.Tenant, ctx.member.Id),
      phoneVerificationDecider,
      {
        type: 'ConfirmCode',
        tenant: ctx.tenant.Tenant,
        memberId: ctx.member.Id,
        code: body.Code,
        codeMatches: (codeId, code) => OneTimeKeys.matches(code, OneTimeKeys.hash(keys.code(PHONE_CODE_PURPOSE, codeId))),
        currentPhone,
        at: ctx.now.toISOString(),
      },
      { readYourWrites: true },
    );
    const event = result.events[0];
    if (event?.type === 'PhoneVerificationCodeRejected') {
      const left = MAX_FAILED_ATTEMPTS - event.data.failedAttempts;
      throw new ValidationError(
        left > 0
          ? `The code is not right; ${left} more ${left === 1 ? 'try' : 'tries'} before it is void.`
          : 'The code is not right, and is void now; request a new one.',
        [{ field: 'body.Code', message: 'not the code that was texted' }],
        { code: 'verification-code-invalid' },
      );
    }
    if (event?.type !== 'MemberPhoneVerified') throw new Error('no verification recorded');
    const profile = await profiles(ctx.db).findById(String(ctx.member.Id));
    return { Phone: event.data.phone, SmsVerificationCompleted: profile?.SmsVerificationCompleted ?? false };
  },
});

export const phoneVerificationCommandOperations = [requestPhoneVerification, confirmPhoneVerification];
