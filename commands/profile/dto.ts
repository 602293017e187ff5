import { z } from '../../src/http/schemas.ts';
import { type MemberDoc } from '../../projections/members/index.ts';
import { signUpPhone, type ProfileDoc } from '../../projections/profile/index.ts';
import {
  EXTRA_DATA_MAX_KEYS,
  EXTRA_KEY_MAX,
  EXTRA_VALUE_MAX,
  PHONE_INPUT_MAX,
  TEXT_LIMITS,
  TIMEZONE_MAX,
  VAT_INPUT_MAX,
  WEBSITE_MAX,
} from './events.ts';

/* MemberDto: what GET /v1/me answers and PUT /v1/me answers back, from the member and profile read models. */

/** A text the service may not hold (null), at most `max` characters. */
const s = (max: number) => z.string().max(max).nullable();
const t = (key: keyof typeof TEXT_LIMITS) => s(TEXT_LIMITS[key]);
const phone = () => s(PHONE_INPUT_MAX).openapi({ description: 'E.164 (`+31612345678`) when it parses.' });
const country = () => s(2).openapi({ description: 'ISO 3166-1 alpha-2.' });
const int = () => z.number().int().min(0).max(2147483647).nullable();

export const extraDataSchema = z
  .record(z.string().max(EXTRA_KEY_MAX), z.union([z.string().max(EXTRA_VALUE_MAX), z.number(), z.boolean(), z.null()]))
  .openapi({ maxProperties: EXTRA_DATA_MAX_KEYS, description: `The member's own key-value data: at most ${EXTRA_DATA_MAX_KEYS} entries.` });

/**
 * MemberDto as the seed lists it, minus what must never leave the service (password material,
 * ValidationKey, IpAddress). Fields the service does not hold are null.
 */
export const memberDtoSchema = z
  .object({
    Id: z.number().int().min(1).max(2147483647),
    UID: z.string().max(36).openapi({ format: 'uuid' }),
    Email: z.string().max(320).openapi({ format: 'email' }),
    Language: z
      .string()
      .max(5)
      .regex(/^[a-z]{2}(-[A-Z]{2})?$/),
    FirstName: t('firstName'),
    LastName: t('lastName'),
    Title: t('title'),
    Gender: t('gender'),
    CompanyName: t('companyName'),
    CompanyId: t('companyId'),
    CompanyRegistrationCity: t('companyRegistrationCity'),
    VATNumber: s(VAT_INPUT_MAX).openapi({ description: 'As stored: no spaces, dots or dashes, upper-case, with its country prefix.' }),
    Address: t('address'),
    HouseNumber: t('houseNumber'),
    AddressSecond: t('addressSecond'),
    ZipCode: t('zipCode'),
    City: t('city'),
    Country: country(),
    Fax: phone(),
    Phone: phone(),
    Phone2: phone(),
    LoginProvider: s(100),
    ProviderKey: s(200),
    MailingLists: t('mailingLists'),
    FoundByOther: t('foundByOther'),
    IdentificationType: t('identificationType'),
    IdentificationValue: t('identificationValue'),
    PaymentOptionValue: t('paymentOptionValue'),
    PaymentExtraData: t('paymentExtraData'),
    Website: s(WEBSITE_MAX).openapi({ format: 'uri' }),
    DeliveryName: t('deliveryName'),
    DeliveryAddress: t('deliveryAddress'),
    DeliveryHouseNumber: t('deliveryHouseNumber'),
    DeliveryAddressSecond: t('deliveryAddressSecond'),
    DeliveryZipCode: t('deliveryZipCode'),
    DeliveryCity: t('deliveryCity'),
    DeliveryCountry: country(),
    // FirstName and LastName (200 each); then ` (Id)`.
    DeliveryPhone: phone(),
    FullName: z.string().max(401),
    FullNameWithId: z.string().max(414),
    Timezone: s(TIMEZONE_MAX).openapi({ description: 'An IANA time zone (`Europe/Amsterdam`).' }),
    ApplicationName: s(200),
    ApplicationId: s(100),
    FoundBy: int(),
    RegistrationType: int(),
    PaymentOptionId: int(),
    DateRegistered: z.string().max(30).openapi({ format: 'date-time' }),
    DateOfBirth: s(10).openapi({ format: 'date' }),
    Created: z.string().max(30).openapi({ format: 'date-time' }),
    IsConsigner: z.boolean(),
    HasBidderRole: z.boolean(),
    Validated: z.boolean(),
    IsCompany: z.boolean(),
    ExternalLogin: z.boolean(),
    VatFree: z.boolean().openapi({
      description:
        "Decided by the service's VAT check: true only for a valid VAT number of an EU country other than the house's own (reverse charge).",
    }),
    IsPep: z.boolean(),
    SmsVerificationCompleted: z.boolean().openapi({ description: 'The current `Phone` was verified with a code by SMS.' }),
    Roles: z
      .array(
        z
          .string()
          .max(20)
          .openapi({ enum: ['bidder', 'consigner'] }),
      )
      .max(2),
    ExtraData: extraDataSchema,
  })
  .openapi('MemberDto');

export type MemberDto = z.infer<typeof memberDtoSchema>;

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

/**
 * The MemberDto of a member: account fields (id, email, roles, ...) from the member read model, the profile
 * and the decisions the service owns from the profile read model. A member the profile projection has not
 * seen yet shows the sign-up's name, language and phone.
 */
export function toMemberDto(m: MemberDoc, profile: ProfileDoc | null): MemberDto {
  const nulls = Object.fromEntries(
    Object.entries(memberDtoSchema.shape)
      .filter(([, schema]) => schema.safeParse(null).success)
      .map(([key]) => [key, null]),
  );
  const own = profile
    ? (() => {
        const {
          _id,
          _pos,
          MemberId: _memberId,
          VerifiedPhone: _verifiedPhone,
          LastVatCheck: _lastVatCheck,
          UpdatedAt: _updatedAt,
          ...fields
        } = profile;
        return fields;
      })()
    : {
        Language: m.Language,
        FirstName: m.FirstName || null,
        LastName: m.LastName || null,
        Phone: signUpPhone(m.Phone),
        IsCompany: false,
        ExtraData: {},
        VatFree: false,
        SmsVerificationCompleted: false,
      };
  const fullName = [own.FirstName, own.LastName].filter(Boolean).join(' ');
  return {
    ...(nulls as Record<string, null>),
    ...own,
    Language: own.Language || m.Language,
    Id: m.Id,
    UID: m.UID,
    Email: m.Email,
    FullName: fullName,
    FullNameWithId: `${fullName} (${m.Id})`,
    DateRegistered: m.DateRegistered,
    Created: m.Created,
    IsConsigner: m.Roles.includes('consigner'),
    HasBidderRole: m.Roles.includes('bidder'),
    Validated: m.Validated,
    ExternalLogin: false,
    IsPep: false,
    Roles: m.Roles,
  } as MemberDto;
}

export const memberDtoExample: MemberDto = {
  Id: 1001,
  UID: '5b0c6f3e-2a47-4d8e-9f1a-7c3b2e6d4a10',
  Email: 'anna.berg@example.com',
  Language: 'sv',
  FirstName: 'Anna',
  LastName: 'Berg',
  Title: null,
  Gender: null,
  CompanyName: 'Berg Antik AB',
  CompanyId: '556677-8899',
  CompanyRegistrationCity: 'Stockholm',
  VATNumber: 'SE556677889901',
  Address: 'Storgatan',
  HouseNumber: '12',
  AddressSecond: null,
  ZipCode: '114 51',
  City: 'Stockholm',
  Country: 'SE',
  Fax: null,
  Phone: '+46701234567',
  Phone2: null,
  LoginProvider: null,
  ProviderKey: null,
  MailingLists: null,
  FoundByOther: null,
  IdentificationType: null,
  IdentificationValue: null,
  PaymentOptionValue: null,
  PaymentExtraData: null,
  Website: null,
  DeliveryName: null,
  DeliveryAddress: null,
  DeliveryHouseNumber: null,
  DeliveryAddressSecond: null,
  DeliveryZipCode: null,
  DeliveryCity: null,
  DeliveryCountry: null,
  DeliveryPhone: null,
  FullName: 'Anna Berg',
  FullNameWithId: 'Anna Berg (1001)',
  Timezone: 'Europe/Stockholm',
  ApplicationName: null,
  ApplicationId: null,
  FoundBy: null,
  RegistrationType: null,
  PaymentOptionId: null,
  DateRegistered: '2025-03-14T08:12:00.000Z',
  DateOfBirth: null,
  Created: '2025-03-14T08:12:00.000Z',
  IsConsigner: false,
  HasBidderRole: true,
  Validated: true,
  IsCompany: true,
  ExternalLogin: false,
  VatFree: true,
  IsPep: false,
  SmsVerificationCompleted: true,
  Roles: ['bidder'],
  ExtraData: {},
};
