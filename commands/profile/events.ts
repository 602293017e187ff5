import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';
import { profileSchema, VAT_STORED } from './shared.ts';

const STREAM = 'profile-{tenant}-{memberId}';
const checkId = z.uuid();
const vatNumber = z.string().regex(VAT_STORED);
const countryCode = z.string().regex(/^[A-Z]{2}$/);

export const MemberProfileReplaced = defineEvent({
  type: 'MemberProfileReplaced',
  version: 1,
  stream: STREAM,
  description:
    'The bidder replaced their profile (PUT /v1/me), or the back office imported it: `profile` holds every writable field, normalised ' +
    '(phone numbers in E.164, the VAT number without spaces, upper-case; an empty field is null). Server-owned fields are not in it. ' +
    'A changed `phone` ends the verification of the previous number.',
  schema: z.object({ tenant: tenantId, memberId: positiveId, profile: profileSchema, at: isoDateTime }),
});

export const MemberVatCheckRequested = defineEvent({
  type: 'MemberVatCheckRequested',
  version: 1,
  stream: STREAM,
  description:
    'A profile replacement changed the company name or the VAT number (and a number is given): the number is checked in the background ' +
    '(a job keyed by `checkId`). Until its result, a new number is not VAT-free.',
  schema: z.object({
    tenant: tenantId,
    memberId: positiveId,
    checkId,
    vatNumber,
    companyName: z.string().max(200).nullable(),
    at: isoDateTime,
  }),
});

export const MemberVatNumberChecked = defineEvent({
  type: 'MemberVatNumberChecked',
  version: 1,
  stream: STREAM,
  description:
    "The result of a VAT check (`source`: `format` = format and checksum, `vies` = the EU's VIES service) and the decision it gives: " +
    "`vatFree` is true only for a valid number of an EU member state other than the house's own country (`homeCountry`; reverse charge). " +
    "Recorded only while `vatNumber` is still the profile's number (a result for a number replaced meanwhile is dropped).",
  schema: z.object({
    tenant: tenantId,
    memberId: positiveId,
    checkId,
    vatNumber,
    valid: z.boolean(),
    country: countryCode.nullable(),
    source: z.enum(['format', 'vies']),
    homeCountry: countryCode.nullable(),
    vatFree: z.boolean(),
    at: isoDateTime,
  }),
});

export const profileEvents = defineEvents([MemberProfileReplaced, MemberVatCheckRequested, MemberVatNumberChecked]);
export type ProfileEvent = EventsOf<typeof profileEvents>;

export const profileStreamId = (tenant: string, memberId: number) => `profile-${tenant}-${memberId}`;
