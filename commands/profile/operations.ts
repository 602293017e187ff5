// Replacing the signed-in member's profile (`PUT /v1/me`), decided on the member's profile stream; declared once
// (defineOperation) for routing, validation and the OpenAPI document.
import { parsePhoneNumberFromString, isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { holdsLines } from '../../src/text/holds-lines.ts';
import { ValidationError, type FieldError } from '../../src/errors.ts';
import { memberDtoExample, toMemberDto, memberDtoSchema, SERVER_OWNED } from './dto.ts';
import type { TenantDoc } from '../../projections/access/index.ts';
import { profileOf } from '../../projections/profile/index.ts';
import { isCountryCode, timeZoneName, normaliseVatNumber } from './rules.ts';
import { profileDecider } from './decide.ts';
import {
  COUNTRY_FIELDS,
  dtoName,
  EXTRA_DATA_MAX_KEYS,
  EXTRA_KEY_MAX,
  EXTRA_VALUE_MAX,
  INT_FIELDS,
  NO_CONTROLS,
  PHONE_FIELDS,
  PHONE_INPUT_MAX,
  profileStreamId,
  TEXT_LIMITS,
  TIMEZONE_MAX,
  VAT_INPUT_MAX,
  VAT_STORED,
  WEBSITE_MAX,
  type ProfileFields,
  type TextField,
} from './events.ts';

const validDate = (text: string) => {
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
};

// Body fields: `null`, an empty text or leaving a field out all store it empty.
const text = (max: number) => z.string().max(max).regex(NO_CONTROLS, 'no control characters or line breaks').nullable().optional();
type Optional<T extends z.ZodType> = z.ZodOptional<z.ZodNullable<T>>;
function textFields(): { [K in TextField as Capitalize<K>]: Optional<z.ZodString> } {
  return Object.fromEntries(Object.entries(TEXT_LIMITS).map(([k, max]) => [dtoName(k), text(max)])) as never;
}
function listed<K extends string, S>(keys: readonly K[], schema: () => S): { [P in K as Capitalize<P>]: S } {
  return Object.fromEntries(keys.map((k) => [dtoName(k), schema()])) as never;
}

export const profileReplacementSchema = z
  .object({
    Language: z
      .string()
      .regex(/^([a-z]{2}(-[A-Z]{2})?)?$/, 'a language code such as `en`')
      .max(5)
      .nullable()
      .optional()
      .openapi({ description: "One of the house's published languages; the house's default language when left out." }),
    ...textFields(),
    ...listed(PHONE_FIELDS, () =>
      text(PHONE_INPUT_MAX).openapi({
        description: "A phone number, international (`+31 6 12345678`) or as dialled in the house's country; stored in E.164.",
      }),
    ),
    ...listed(COUNTRY_FIELDS, () =>
      z
        .string()
        .max(2)
        .regex(/^([A-Za-z]{2})?$/, 'an ISO 3166-1 alpha-2 code such as `NL`')
        .refine((v) => v === '' || isCountryCode(v.toUpperCase()), 'not an ISO 3166-1 alpha-2 country code')
        .nullable()
        .optional()
        .openapi({ description: 'ISO 3166-1 alpha-2 (`NL`).' }),
    ),
    ...listed(INT_FIELDS, () => z.number().int().min(0).max(2147483647).nullable().optional()),
    VATNumber: z
      .string()
      .max(VAT_INPUT_MAX)
      .regex(/^[A-Za-z0-9+*\s.-]*$/, 'letters and digits, with its country prefix (`DE136695976`)')
      .nullable()
      .optional()
      .openapi({ description: 'With its country prefix; spaces, dots and dashes are dropped. Checked in the background: see `VatFree`.' }),
    Website: z
      .string()
      .max(WEBSITE_MAX)
      .refine(
        (v) => v.trim() === '' || (URL.canParse(v.trim()) && /^https?:$/.test(new URL(v.trim()).protocol)),
        'an http or https address',
      )
      .nullable()
      .optional()
      .openapi({ format: 'uri' }),
    Timezone: z
      .string()
      .max(TIMEZONE_MAX)
      .refine((v) => v.trim() === '' || timeZoneName(v.trim()) !== null, 'an IANA time zone such as `Europe/Amsterdam`')
      .nullable()
      .optional(),
    DateOfBirth: z
      .string()
      .regex(/^(\d{4}-\d{2}-\d{2})?$/, 'a date, YYYY-MM-DD')
      .refine(
        (v) => v === '' || (validDate(v) && v >= '1900-01-01' && v <= new Date().toISOString().slice(0, 10)),
        'a real date between 1900-01-01 and today',
      )
      .nullable()
      .optional()
      .openapi({ format: 'date', maxLength: 10 }),
    IsCompany: z.boolean().nullable().optional(),
    ExtraData: z
      .record(
        z
          .string()
          .min(1)
          .max(EXTRA_KEY_MAX)
          .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, `_`, `.` and `-`'),
        z.union([holdsLines(z.string().max(EXTRA_VALUE_MAX)), z.number(), z.boolean(), z.null()]),
      )
      .refine((r) => Object.keys(r).length <= EXTRA_DATA_MAX_KEYS, `at most ${EXTRA_DATA_MAX_KEYS} entries`)
      .nullable()
      .optional()
      .openapi({ maxProperties: EXTRA_DATA_MAX_KEYS }),
  })
  .openapi('MemberProfileReplacement', {
    description:
      'A MemberDto, as `GET /v1/me` answers it. Every writable field is stored as given; a writable field left out (or null, or empty) is stored empty. ' +
      `Server-owned fields (${SERVER_OWNED.join(', ')}) and unknown fields are ignored.`,
  });

type Body = z.output<typeof profileReplacementSchema>;

/**
 * The body as stored: texts trimmed (empty → null), phones in E.164 (the house's country as the default
 * region), countries upper-case, the VAT number without separators, the time zone in its canonical spelling,
 * the language the house's default when left out. Field errors name `body.<Field>`.
 */
export function normaliseProfile(body: Body, tenant: Pick<TenantDoc, 'Country' | 'Languages' | 'DefaultLanguage'>): ProfileFields {
  const errors: FieldError[] = [];
  const raw = body as Record<string, unknown>;
  const clean = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  const region = tenant.Country && isSupportedCountry(tenant.Country) ? (tenant.Country as CountryCode) : undefined;

  const language = clean(body.Language) ?? tenant.DefaultLanguage;
  if (!tenant.Languages.includes(language))
    errors.push({ field: 'body.Language', message: `one of the house's languages: ${tenant.Languages.join(', ')}` });

  const profile: Record<string, unknown> = { language };
  for (const key of Object.keys(TEXT_LIMITS)) profile[key] = clean(raw[dtoName(key)]);
  for (const key of PHONE_FIELDS) {
    const value = clean(raw[dtoName(key)]);
    const parsed = value === null ? undefined : parsePhoneNumberFromString(value, region ? { defaultCountry: region } : undefined);
    if (value !== null && !parsed?.isValid())
      errors.push({ field: `body.${dtoName(key)}`, message: 'not a phone number: give it with its country code (+31 6 12345678)' });
    profile[key] = value === null ? null : (parsed?.number ?? null);
  }
  for (const key of COUNTRY_FIELDS) profile[key] = clean(raw[dtoName(key)])?.toUpperCase() ?? null;
  for (const key of INT_FIELDS) profile[key] = raw[dtoName(key)] ?? null;
  const vatNumber = normaliseVatNumber(body.VATNumber);
  if (vatNumber !== null && !VAT_STORED.test(vatNumber))
    errors.push({ field: 'body.VATNumber', message: 'letters and digits, with its country prefix (DE136695976)' });
  profile.vatNumber = vatNumber;
  profile.website = clean(body.Website);
  const zone = clean(body.Timezone);
  profile.timezone = zone === null ? null : timeZoneName(zone);
  profile.dateOfBirth = clean(body.DateOfBirth);
  profile.isCompany = body.IsCompany ?? false;
  profile.extraData = body.ExtraData ?? {};
  if (errors.length) throw new ValidationError('The request has invalid values.', errors);
  return profile as ProfileFields;
}

export const replaceProfile = defineOperation({
  route: { number: 43, operationId: 'replaceProfile', group: 'Bidder profile', method: 'put', path: '/v1/me', auth: 'member' },
  docs: {
    summary: "Replace the signed-in member's profile",
    description:
      'A replacement, not a merge: every writable field of the body is stored, and a writable field left out (or null, or empty) is stored empty. ' +
      'Server-owned fields (`Id`, `UID`, `Email`, `Roles`, `Validated`, `VatFree`, `SmsVerificationCompleted`, `FullName`, ...) and unknown fields are ignored: ' +
      'send back what `GET /v1/me` answered, changed where needed. Answers the stored profile. ' +
      "Phone numbers are stored in E.164 (a number without a country code is read as one of the house's country); one that is not a phone number is a 400. " +
      'A changed `Phone` is no longer verified (`SmsVerificationCompleted` false until a new code confirms it). ' +
      'A changed `CompanyName` or `VATNumber` starts a VAT check in the background: `VatFree` becomes true only for a valid VAT number of an EU country ' +
      "other than the house's own (reverse charge), and is false while a new number is being checked; re-read the profile (`GET /v1/me`) for the result.",
    examples: {
      body: {
        Language: 'sv',
        FirstName: 'Anna',
        LastName: 'Berg',
        CompanyName: 'Berg Antik AB',
        CompanyId: '556677-8899',
        CompanyRegistrationCity: 'Stockholm',
        VATNumber: 'SE556677889901',
        Address: 'Storgatan',
        HouseNumber: '12',
        ZipCode: '114 51',
        City: 'Stockholm',
        Country: 'SE',
        Phone: '+46 70 123 45 67',
        Timezone: 'Europe/Stockholm',
        IsCompany: true,
        ExtraData: {},
      },
      response: { ...memberDtoExample, VatFree: false, SmsVerificationCompleted: false },
    },
  },
  input: { body: profileReplacementSchema },
  output: { response: memberDtoSchema },
  async handler({ body }, ctx) {
    const profile = normaliseProfile(body, ctx.tenant);
    await ctx.commands.run(
      profileStreamId(ctx.tenant.Tenant, ctx.member.Id),
      profileDecider,
      {
        type: 'ReplaceProfile',
        tenant: ctx.tenant.Tenant,
        memberId: ctx.member.Id,
        profile,
        checkId: ctx.keys.newId(),
        at: ctx.now.toISOString(),
      },
      { readYourWrites: true },
    );
    return toMemberDto(ctx.member, await profileOf(ctx.db, ctx.member.Id));
  },
});

export const profileCommandOperations = [replaceProfile];
