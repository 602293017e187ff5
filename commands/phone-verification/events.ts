import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

const STREAM = 'phone-{tenant}-{memberId}';
/** An E.164 number: `+`, then 7 to 15 digits. */
export const e164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'an E.164 phone number (+31612345678)');

export const PhoneVerificationCodeIssued = defineEvent({
  type: 'PhoneVerificationCodeIssued',
  version: 1,
  stream: STREAM,
  private: ['codeId'],
  description:
    'The bidder asked for a code to verify their phone (POST /v1/me/phone-verification): a 6-digit code is texted to `phone` by a background ' +
    'job, valid until `expiresAt` (10 minutes), single use; it replaces any earlier code. The code is derived from `codeId` with a server ' +
    'secret, so neither the log nor the job queue holds the code or anything it could be recovered from.',
  schema: z.object({ tenant: tenantId, memberId: positiveId, codeId: z.uuid(), phone: e164, expiresAt: isoDateTime, at: isoDateTime }),
});

export const PhoneVerificationCodeRejected = defineEvent({
  type: 'PhoneVerificationCodeRejected',
  version: 1,
  stream: STREAM,
  private: ['codeId'],
  description:
    'A wrong code was presented for the current code (`failedAttempts` counts them); the 5th wrong code voids it, and a new one must be requested.',
  schema: z.object({
    tenant: tenantId,
    memberId: positiveId,
    codeId: z.uuid(),
    failedAttempts: z.number().int().min(1).max(5),
    at: isoDateTime,
  }),
});

export const MemberPhoneVerified = defineEvent({
  type: 'MemberPhoneVerified',
  version: 1,
  stream: STREAM,
  private: ['codeId'],
  description:
    'The bidder proved they receive texts at `phone` (the right code, `codeId`; or the back office imported a verified number, `codeId` null). ' +
    "SmsVerificationCompleted holds while the profile's phone is this number.",
  schema: z.object({ tenant: tenantId, memberId: positiveId, codeId: z.uuid().nullable(), phone: e164, at: isoDateTime }),
});

export const phoneVerificationEvents = defineEvents([PhoneVerificationCodeIssued, PhoneVerificationCodeRejected, MemberPhoneVerified]);
export type PhoneVerificationEvent = EventsOf<typeof phoneVerificationEvents>;

export const phoneStreamId = (tenant: string, memberId: number) => `phone-${tenant}-${memberId}`;
