import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import type { MemberDoc } from '../../projections/members/projection.ts';

// Names are at most 200 characters and a phone number 50; the fields the service does not hold yet are null.
const s = () => z.string().max(200).nullable();

/**
 * MemberDto as the seed lists it, minus what must never leave the service (password material,
 * ValidationKey, IpAddress). Fields the service does not hold yet are null.
 */
export const memberDtoSchema = z
  .object({
    Id: z.number().int().min(1).max(2147483647),
    UID: z.string().max(36).openapi({ format: 'uuid' }),
    Email: z.string().max(320).openapi({ format: 'email' }),
    Language: z.string().max(5).regex(/^[a-z]{2}(-[A-Z]{2})?$/),
    FirstName: s(), LastName: s(), Title: s(), Gender: s(), CompanyName: s(), CompanyId: s(), CompanyRegistrationCity: s(),
    VATNumber: s(), Address: s(), HouseNumber: s(), AddressSecond: s(), ZipCode: s(), City: s(), Country: s(), Fax: s(),
    Phone: s(), Phone2: s(), LoginProvider: s(), ProviderKey: s(), MailingLists: s(), FoundByOther: s(), IdentificationType: s(),
    IdentificationValue: s(), PaymentOptionValue: s(), PaymentExtraData: s(), Website: s(), DeliveryName: s(), DeliveryAddress: s(),
    DeliveryHouseNumber: s(), DeliveryAddressSecond: s(), DeliveryZipCode: s(), DeliveryCity: s(), DeliveryCountry: s(),
    // FirstName and LastName (200 each); then ` (Id)`.
    DeliveryPhone: s(), FullName: z.string().max(401), FullNameWithId: z.string().max(414), Timezone: s(), ApplicationName: s(),
    ApplicationId: s(),
    FoundBy: z.number().int().min(-2147483648).max(2147483647).nullable(),
    RegistrationType: z.number().int().min(-2147483648).max(2147483647).nullable(),
    PaymentOptionId: z.number().int().min(-2147483648).max(2147483647).nullable(),
    DateRegistered: z.string().max(30).openapi({ format: 'date-time' }),
    DateOfBirth: s(),
    Created: z.string().max(30).openapi({ format: 'date-time' }),
    IsConsigner: z.boolean(), HasBidderRole: z.boolean(), Validated: z.boolean(), IsCompany: z.boolean(), ExternalLogin: z.boolean(),
    VatFree: z.boolean(), IsPep: z.boolean(), SmsVerificationCompleted: z.boolean(),
    Roles: z.array(z.string().max(20).openapi({ enum: ['bidder', 'consigner'] })).max(2),
    ExtraData: z.record(z.string(), z.unknown()),
  })
  .openapi('MemberDto');

export function toMemberDto(m: MemberDoc): z.infer<typeof memberDtoSchema> {
  const fullName = `${m.FirstName} ${m.LastName}`.trim();
  const nulls = Object.fromEntries(
    Object.entries(memberDtoSchema.shape)
      .filter(([, schema]) => schema.safeParse(null).success)
      .map(([key]) => [key, null]),
  );
  return {
    ...(nulls as Record<string, null>),
    Id: m.Id,
    UID: m.UID,
    Email: m.Email,
    Language: m.Language,
    FirstName: m.FirstName,
    LastName: m.LastName,
    Phone: m.Phone || null,
    FullName: fullName,
    FullNameWithId: `${fullName} (${m.Id})`,
    DateRegistered: m.DateRegistered,
    Created: m.Created,
    IsConsigner: m.Roles.includes('consigner'),
    HasBidderRole: m.Roles.includes('bidder'),
    Validated: m.Validated,
    IsCompany: false,
    ExternalLogin: false,
    VatFree: false,
    IsPep: false,
    SmsVerificationCompleted: false,
    Roles: m.Roles,
    ExtraData: {},
  } as z.infer<typeof memberDtoSchema>;
}

export const getProfile = defineOperation({
  number: 42,
  operationId: 'getProfile',
  group: 'Bidder profile',
  method: 'get',
  path: '/v1/me',
  auth: 'member',
  summary: "The signed-in member's profile",
  description: 'Every field of the member profile; fields the service does not hold yet are null. Never carries password material or confirmation keys.',
  response: memberDtoSchema,
  examples: {
    response: {
      Id: 1001, UID: '5b0c6f3e-2a47-4d8e-9f1a-7c3b2e6d4a10', Email: 'anna.berg@example.com', Language: 'sv',
      FirstName: 'Anna', LastName: 'Berg', Title: null, Gender: null, CompanyName: null, CompanyId: null, CompanyRegistrationCity: null,
      VATNumber: null, Address: null, HouseNumber: null, AddressSecond: null, ZipCode: null, City: null, Country: null, Fax: null,
      Phone: '+46701234567', Phone2: null, LoginProvider: null, ProviderKey: null, MailingLists: null, FoundByOther: null, IdentificationType: null,
      IdentificationValue: null, PaymentOptionValue: null, PaymentExtraData: null, Website: null, DeliveryName: null, DeliveryAddress: null,
      DeliveryHouseNumber: null, DeliveryAddressSecond: null, DeliveryZipCode: null, DeliveryCity: null, DeliveryCountry: null,
      DeliveryPhone: null, FullName: 'Anna Berg', FullNameWithId: 'Anna Berg (1001)', Timezone: null, ApplicationName: null,
      ApplicationId: null, FoundBy: null, RegistrationType: null, PaymentOptionId: null,
      DateRegistered: '2025-03-14T08:12:00.000Z', DateOfBirth: null, Created: '2025-03-14T08:12:00.000Z',
      IsConsigner: false, HasBidderRole: true, Validated: true, IsCompany: false, ExternalLogin: false,
      VatFree: false, IsPep: false, SmsVerificationCompleted: false,
      Roles: ['bidder'],
      ExtraData: {},
    },
  },
  async handler(_input, ctx) {
    return toMemberDto(ctx.member);
  },
});

export const profileOperations = [getProfile];
