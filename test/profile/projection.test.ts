import { profileReadModels } from '../../projections/profile/index.ts';
import type { MemberEvent } from '../../commands/members/events.ts';
import type { PhoneVerificationEvent } from '../../commands/phone-verification/events.ts';
import { emptyProfile, type ProfileEvent, type ProfileFields } from '../../commands/profile/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

type Event = MemberEvent | ProfileEvent | PhoneVerificationEvent;

const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
const PHONE = '+31612345678';
const OTHER_PHONE = '+31687654321';
const VAT = 'DE123456789';
const CHECK = '5f1e2d3c-4b5a-4697-8887-766554433221';

const signedUp = (memberId: number, phone: string, tenant = 'demo'): Event => ({
  type: 'MemberSignedUp',
  data: {
    tenant,
    memberId,
    uid: '0b6c3f7a-2d4e-4f1a-8b9c-5e6d7f8a9b0c',
    email: 'ada@example.com',
    passwordHash: 'scrypt$x',
    firstName: ' Ada ',
    lastName: '',
    language: 'nl',
    phone,
    signedUpAt: at(0),
  },
});
const replaced = (memberId: number, fields: Partial<ProfileFields>, minute: number, tenant = 'demo'): Event => ({
  type: 'MemberProfileReplaced',
  data: { tenant, memberId, profile: { ...emptyProfile('en'), ...fields }, at: at(minute) },
});
const vatChecked = (memberId: number, vatNumber: string, vatFree: boolean, minute: number): Event => ({
  type: 'MemberVatNumberChecked',
  data: {
    tenant: 'demo',
    memberId,
    checkId: CHECK,
    vatNumber,
    valid: true,
    country: 'DE',
    source: 'vies',
    homeCountry: 'NL',
    vatFree,
    at: at(minute),
  },
});
const phoneVerified = (memberId: number, phone: string, minute: number): Event => ({
  type: 'MemberPhoneVerified',
  data: { tenant: 'demo', memberId, codeId: null, phone, at: at(minute) },
});
const removed = (memberId: number, minute: number): Event => ({
  type: 'MemberRemoved',
  data: { tenant: 'demo', memberId, at: at(minute) },
});

const check = (vatNumber: string, vatFree: boolean, minute: number) => ({
  CheckId: CHECK,
  VatNumber: vatNumber,
  Valid: true,
  Country: 'DE',
  Source: 'vies',
  VatFree: vatFree,
  CheckedAt: at(minute),
});

describe('profile projection', () => {
  it("starts a member's profile at the sign-up: the names trimmed (empty ones null), the phone in E.164 when it parses, the rest empty", async () => {
    await givenEvents(signedUp(1, '+31 6 1234 5678'), signedUp(2, '0612345678'))
      .whenProjected(profileReadModels)
      .thenDocumentsMatching('profiles', 'demo', [
        {
          _id: '1',
          MemberId: 1,
          Language: 'nl',
          FirstName: 'Ada',
          LastName: null,
          Phone: PHONE,
          VATNumber: null,
          CompanyName: null,
          IsCompany: false,
          ExtraData: {},
          VatFree: false,
          SmsVerificationCompleted: false,
          VerifiedPhone: null,
          LastVatCheck: null,
          UpdatedAt: at(0),
        },
        { _id: '2', MemberId: 2, Phone: '0612345678' },
      ]);
  });

  it('takes every field of a replaced profile, and is VAT-free only while the last check of the current number says so', async () => {
    await givenEvents(
      signedUp(1, ''),
      replaced(1, { companyName: 'Lovelace GmbH', vatNumber: VAT, isCompany: true }, 1),
      vatChecked(1, VAT, true, 2),
    )
      .whenProjected(profileReadModels)
      .thenDocumentsMatching('profiles', 'demo', [
        {
          _id: '1',
          Language: 'en',
          FirstName: null,
          CompanyName: 'Lovelace GmbH',
          IsCompany: true,
          VATNumber: VAT,
          VatFree: true,
          LastVatCheck: check(VAT, true, 2),
          UpdatedAt: at(2),
        },
      ]);
    await givenEvents(
      signedUp(1, ''),
      replaced(1, { vatNumber: VAT }, 1),
      vatChecked(1, VAT, true, 2),
      replaced(1, { vatNumber: 'DE999999999' }, 3),
      vatChecked(1, VAT, true, 4),
    )
      .whenProjected(profileReadModels)
      .thenDocumentsMatching('profiles', 'demo', [
        { _id: '1', VATNumber: 'DE999999999', VatFree: false, LastVatCheck: check(VAT, true, 2), UpdatedAt: at(3) },
      ]);
  });

  it('completes the SMS verification for the verified phone, and ends it when the profile changes the phone', async () => {
    await givenEvents(signedUp(1, PHONE), phoneVerified(1, PHONE, 1), replaced(1, { phone: PHONE, city: 'Amsterdam' }, 2))
      .whenProjected(profileReadModels)
      .thenDocumentsMatching('profiles', 'demo', [
        { _id: '1', Phone: PHONE, City: 'Amsterdam', VerifiedPhone: PHONE, SmsVerificationCompleted: true, UpdatedAt: at(2) },
      ]);
    await givenEvents(signedUp(1, PHONE), phoneVerified(1, PHONE, 1), replaced(1, { phone: OTHER_PHONE }, 2))
      .whenProjected(profileReadModels)
      .thenDocumentsMatching('profiles', 'demo', [{ _id: '1', Phone: OTHER_PHONE, VerifiedPhone: null, SmsVerificationCompleted: false }]);
  });

  it("deletes a removed member's profile, and makes none from a check or a verification of a member it does not hold", async () => {
    await givenEvents(signedUp(1, PHONE), removed(1, 1), vatChecked(1, VAT, true, 2), phoneVerified(2, PHONE, 3))
      .whenProjected(profileReadModels)
      .thenNoDocuments();
  });

  it("keeps each tenant's profiles apart", async () => {
    await givenEvents(signedUp(1, PHONE), signedUp(1, OTHER_PHONE, 'demo2'), replaced(1, { city: 'Stockholm' }, 1, 'demo2'))
      .whenProjected(profileReadModels)
      .thenDocumentsMatching('profiles', 'demo', [{ _id: '1', Phone: PHONE, City: null }])
      .thenDocumentsMatching('profiles', 'demo2', [{ _id: '1', Phone: null, City: 'Stockholm' }]);
  });
});
