import { z } from 'zod';
import { parsePhoneNumberFromString, isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { languageCode } from '../../src/events/define.ts';

/**
 * What other trees use of profiles besides their events (the profile projection and query, other features'
 * intake). The writable fields of a bidder's profile (MemberDto minus the server-owned fields), named once
 * here: the event data (camelCase), the HTTP body and answer (PascalCase, the seed's DTO names) and the read
 * model are all derived from these lists, so a limit is the same everywhere.
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

export const extraValue = z.union([
  z.string().max(EXTRA_VALUE_MAX),
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

/** Server-owned MemberDto fields (API.md "Profile replace"): never taken from a body, never emptied by one. */
export const SERVER_OWNED = [
  'Id',
  'UID',
  'Email',
  'Roles',
  'Validated',
  'HasBidderRole',
  'IsConsigner',
  'VatFree',
  'IsPep',
  'SmsVerificationCompleted',
  'DateRegistered',
  'Created',
  'ExternalLogin',
  'LoginProvider',
  'ProviderKey',
  'ApplicationId',
  'ApplicationName',
  'FullName',
  'FullNameWithId',
  'ValidationKey',
  'IpAddress',
] as const;

/** An empty profile: what a replacement that leaves every field out stores (the language aside). */
export function emptyProfile(language: string): ProfileFields {
  const profile = Object.fromEntries(PROFILE_KEYS.map((k) => [k, null])) as unknown as ProfileFields;
  return { ...profile, language, isCompany: false, extraData: {} };
}

/** VAT numbers as stored: no spaces, dots or dashes, upper-case; null when nothing is left. */
export function normaliseVatNumber(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  const value = raw.replace(/[\s.-]/g, '').toUpperCase();
  return value === '' ? null : value;
}

/** The EU member states, by the ISO code a VAT check answers (Greece is `GR`, its VAT prefix `EL`). */
export const EU_COUNTRIES = new Set([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
]);

/**
 * The VAT decision (reverse charge): VAT-free only for a valid number of an EU member state other than the
 * house's own. A house without a configured country charges VAT to everyone.
 */
export function isVatFree(result: { valid: boolean; country: string | null }, homeCountry: string | null): boolean {
  return (
    result.valid && homeCountry !== null && result.country !== null && EU_COUNTRIES.has(result.country) && result.country !== homeCountry
  );
}

const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'ZZ', 'QO', 'XA', 'XB', 'UK']);
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
/** An ISO 3166-1 alpha-2 code of a country or territory. */
export const isCountryCode = (code: string) => /^[A-Z]{2}$/.test(code) && !NOT_COUNTRIES.has(code) && regionNames.of(code) !== undefined;

/** The IANA name of a time zone (canonical spelling), or null when there is no such zone. */
export function timeZoneName(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** A phone of an intake record in E.164: international, or as dialled in `country` when given. */
export function intakePhone(raw: string | null | undefined, country: string | null | undefined, field: string): string | null {
  const text = raw?.trim();
  if (!text) return null;
  const region = country && isSupportedCountry(country) ? (country as CountryCode) : undefined;
  const parsed = parsePhoneNumberFromString(text, region ? { defaultCountry: region } : undefined);
  if (!parsed?.isValid()) throw new Error(`${field}: not a phone number (give it with its country code)`);
  return parsed.number;
}
