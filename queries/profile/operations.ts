import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import type { MemberDoc } from '../../projections/members/projection.ts';

const s = () => z.string().nullable();

/**
 * MemberDto as the seed lists it, minus what must never leave the service (password material,
 * ValidationKey, IpAddress). Fields the service does not hold yet are null.
 */
export const memberDtoSchema = z
  .object({
    Id: z.number().int(),
    UID: z.string().openapi({ format: 'uuid' }),
    Email: z.string(),
    Language: z.string(),
    FirstName: s(), LastName: s(), Title: s(), Gender: s(), CompanyName: s(), CompanyId: s(), CompanyRegistrationCity: s(),
    VATNumber: s(), Address: s(), HouseNumber: s(), AddressSecond: s(), ZipCode: s(), City: s(), Country: s(), Fax: s(),
    Phone: s(), Phone2: s(), LoginProvider: s(), ProviderKey: s(), MailingLists: s(), FoundByOther: s(), IdentificationType: s(),
    IdentificationValue: s(), PaymentOptionValue: s(), PaymentExtraData: s(), Website: s(), DeliveryName: s(), DeliveryAddress: s(),
    DeliveryHouseNumber: s(), DeliveryAddressSecond: s(), DeliveryZipCode: s(), DeliveryCity: s(), DeliveryCountry: s(),
    DeliveryPhone: s(), FullName: z.string(), FullNameWithId: z.string(), Timezone: s(), ApplicationName: s(),
    ApplicationId: s(),
    FoundBy: z.number().int().nullable(), RegistrationType: z.number().int().nullable(), PaymentOptionId: z.number().int().nullable(),
    DateRegistered: z.string().openapi({ format: 'date-time' }),
    DateOfBirth: s(),
    Created: z.string().openapi({ format: 'date-time' }),
    IsConsigner: z.boolean(), HasBidderRole: z.boolean(), Validated: z.boolean(), IsCompany: z.boolean(), ExternalLogin: z.boolean(),
    VatFree: z.boolean(), IsPep: z.boolean(), SmsVerificationCompleted: z.boolean(),
    Roles: z.array(z.string()),
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
  response: memberDtoSchema,
  async handler(_input, ctx) {
    return toMemberDto(ctx.member);
  },
});

export const profileOperations = [getProfile];
