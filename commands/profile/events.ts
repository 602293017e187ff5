import { z } from 'zod';
import { holdsLines } from '../../src/text/holds-lines.ts';
import { defineEvent, defineEvents, isoDateTime, languageCode, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

/*
 * The writable fields of a bidder's profile (MemberDto minus the server-owned fields), as MemberProfileReplaced
 * carries them, named once here: the event data (camelCase), the HTTP body and answer (PascalCase, the seed's
 * DTO names: dtoName) and the read model are all derived from these lists, so a limit is the same everywhere.
 */

/** Free text fields: their most characters. Stored trimmed; an empty text is stored as null. */
export const TEXT_LIMITS = {
  firstName: 200,
  lastName: 200,
  title: 50,
  gender: 50,
  companyName: 200,
  companyId: 50,
  companyRegistrationCity: 100,
  address: 200,
  houseNumber: 20,
  addressSecond: 200,
  zipCode: 20,
  city: 100,
  mailingLists: 500,
  foundByOther: 200,
  identificationType: 50,
  identificationValue: 100,
  paymentOptionValue: 200,
  paymentExtraData: 1000,
  deliveryName: 200,
  deliveryAddress: 200,
  deliveryHouseNumber: 20,
  deliveryAddressSecond: 200,
  deliveryZipCode: 20,
  deliveryCity: 100,
} as const;
export type TextField = keyof typeof TEXT_LIMITS;

/** Phone numbers: normalised to E.164 (the tenant's country is the default region); at most 50 characters as typed. */
export const PHONE_FIELDS = ['phone', 'phone2', 'fax', 'deliveryPhone'] as const;
export type PhoneField = (typeof PHONE_FIELDS)[number];
export const PHONE_INPUT_MAX = 50;

/** Countries: ISO 3166-1 alpha-2, stored upper-case. */
export const COUNTRY_FIELDS = ['country', 'deliveryCountry'] as const;
export type CountryField = (typeof COUNTRY_FIELDS)[number];

/** Integer choices of the house's own lists (the seed's `FoundBy`, `RegistrationType`, `PaymentOptionId`). */
export const INT_FIELDS = ['foundBy', 'registrationType', 'paymentOptionId'] as const;
export type IntField = (typeof INT_FIELDS)[number];

/** As typed: with spaces, dots or dashes; stored without them, upper-case (`NL 8521.64.412 B01` → `NL852164412B01`). */
export const VAT_INPUT_MAX = 30;
export const VAT_STORED = /^[A-Z0-9+*]{2,30}$/;
export const WEBSITE_MAX = 200;
export const TIMEZONE_MAX = 64;
export const EXTRA_DATA_MAX_KEYS = 50;
export const EXTRA_KEY_MAX = 100;
export const EXTRA_VALUE_MAX = 1000;

/** No control characters (line breaks included) in a text field. */
export const NO_CONTROLS = /^[^\u0000-\u001f\u007f]*$/;

export type ExtraValue = string | number | boolean | null;

/** A profile as the events carry it. */
export type ProfileFields = { [K in TextField]: string | null } & { [K in PhoneField]: string | null } & {
  [K in CountryField]: string | null;
} & {
  [K in IntField]: number | null;
} & {
  language: string;
  vatNumber: string | null;
  website: string | null;
  timezone: string | null;
  /** YYYY-MM-DD. */
  dateOfBirth: string | null;
  isCompany: boolean;
  extraData: Record<string, ExtraValue>;
};

const storedText = (max: number) => z.string().min(1).max(max).regex(NO_CONTROLS).nullable();
function mapKeys<K extends string, S>(keys: readonly K[], schema: (key: K) => S): { [P in K]: S } {
  return Object.fromEntries(keys.map((k) => [k, schema(k)])) as { [P in K]: S };
}
const textKeys = Object.keys(TEXT_LIMITS) as TextField[];

/** A value of `extraData`: the member's own data, so a text may hold lines (a client's notes). */
export const extraValue = z.union([
  holdsLines(z.string().max(EXTRA_VALUE_MAX)),
  z.number().min(-Number.MAX_VALUE).max(Number.MAX_VALUE),
  z.boolean(),
  z.null(),
]);
export const extraKey = z
  .string()
  .min(1)
  .max(EXTRA_KEY_MAX)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, `_`, `.` and `-`');
export const extraData = z
  .record(extraKey, extraValue)
  .refine((r) => Object.keys(r).length <= EXTRA_DATA_MAX_KEYS, `at most ${EXTRA_DATA_MAX_KEYS} entries`);

/** The stored profile in event data (normalised values only). */
export const profileSchema = z.object({
  language: languageCode,
  ...mapKeys(textKeys, (k) => storedText(TEXT_LIMITS[k])),
  ...mapKeys(PHONE_FIELDS, () => storedText(PHONE_INPUT_MAX)),
  ...mapKeys(COUNTRY_FIELDS, () =>
    z
      .string()
      .regex(/^[A-Z]{2}$/)
      .nullable(),
  ),
  ...mapKeys(INT_FIELDS, () => z.number().int().min(0).max(2147483647).nullable()),
  vatNumber: z.string().regex(VAT_STORED).nullable(),
  website: z.string().max(WEBSITE_MAX).nullable(),
  timezone: z.string().max(TIMEZONE_MAX).nullable(),
  dateOfBirth: z.iso.date().nullable(),
  isCompany: z.boolean(),
  extraData,
});

/** Every writable field, camelCase. */
export const PROFILE_KEYS = Object.keys(profileSchema.shape) as Array<keyof ProfileFields>;

/** The MemberDto name of a profile field: `vatNumber` → `VATNumber`, `firstName` → `FirstName`. */
export const dtoName = (key: string) => (key === 'vatNumber' ? 'VATNumber' : key[0].toUpperCase() + key.slice(1));

/** An empty profile: what a replacement that leaves every field out stores (the language aside). */
export function emptyProfile(language: string): ProfileFields {
  const profile = Object.fromEntries(PROFILE_KEYS.map((k) => [k, null])) as unknown as ProfileFields;
  return { ...profile, language, isCompany: false, extraData: {} };
}

/* The events. */

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
