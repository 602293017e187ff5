import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { dtoName, emptyProfile, PROFILE_KEYS, profileEvents, type ProfileFields } from '../../commands/profile/events.ts';
import { memberEvents } from '../../commands/members/events.ts';
import { phoneVerificationEvents } from '../../commands/phone-verification/events.ts';
import { PROFILES, type ProfileDtoFields, type ProfileData, type ProfileDoc, signUpPhone } from './collections.ts';

function dtoFields(profile: ProfileFields): ProfileDtoFields {
  return Object.fromEntries(PROFILE_KEYS.map((k) => [dtoName(k), profile[k]])) as ProfileDtoFields;
}

/** The decisions follow from the fields: one rule, applied after every change. */
function decided(doc: Omit<ProfileData, 'VatFree' | 'SmsVerificationCompleted'>): ProfileData {
  const check = doc.LastVatCheck;
  return {
    ...doc,
    VatFree: check !== null && doc.VATNumber !== null && check.VatNumber === doc.VATNumber && check.VatFree,
    SmsVerificationCompleted: doc.Phone !== null && doc.VerifiedPhone === doc.Phone,
  };
}

export const profileProjection = defineDocumentProjection({
  name: 'profiles',
  events: [memberEvents, profileEvents, phoneVerificationEvents],
  handles: ['MemberSignedUp', 'MemberRemoved', 'MemberProfileReplaced', 'MemberVatNumberChecked', 'MemberPhoneVerified'],
  collections: [{ name: PROFILES }],
  async apply(event, uow) {
    switch (event.type) {
      case 'MemberSignedUp': {
        const d = event.data;
        await uow.update<ProfileDoc>(PROFILES, d.tenant, String(d.memberId), (doc) =>
          doc
            ? doc
            : decided({
                MemberId: d.memberId,
                ...dtoFields({
                  ...emptyProfile(d.language),
                  firstName: d.firstName.trim() || null,
                  lastName: d.lastName.trim() || null,
                  phone: signUpPhone(d.phone),
                }),
                VerifiedPhone: null,
                LastVatCheck: null,
                UpdatedAt: d.signedUpAt,
              }),
        );
        return;
      }
      case 'MemberRemoved':
        await uow.update<ProfileDoc>(PROFILES, event.data.tenant, String(event.data.memberId), () => null);
        return;
      case 'MemberProfileReplaced': {
        const d = event.data;
        await uow.update<ProfileDoc>(PROFILES, d.tenant, String(d.memberId), (doc) => {
          const fields = dtoFields(d.profile);
          const phoneChanged = doc !== null && doc.Phone !== fields.Phone;
          return decided({
            MemberId: d.memberId,
            ...fields,
            VerifiedPhone: doc && !phoneChanged ? doc.VerifiedPhone : null,
            LastVatCheck: doc?.LastVatCheck ?? null,
            UpdatedAt: d.at,
          });
        });
        return;
      }
      case 'MemberVatNumberChecked': {
        const d = event.data;
        await uow.update<ProfileDoc>(PROFILES, d.tenant, String(d.memberId), (doc) => {
          if (!doc) return null;
          const { _id, _pos, ...rest } = doc;
          // The decider records only a result for the current number; the guard here keeps the read model right on its own too.
          if (doc.VATNumber !== d.vatNumber) return rest;
          return decided({
            ...rest,
            LastVatCheck: {
              CheckId: d.checkId,
              VatNumber: d.vatNumber,
              Valid: d.valid,
              Country: d.country,
              Source: d.source,
              VatFree: d.vatFree,
              CheckedAt: d.at,
            },
            UpdatedAt: d.at,
          });
        });
        return;
      }
      case 'MemberPhoneVerified': {
        const d = event.data;
        await uow.update<ProfileDoc>(PROFILES, d.tenant, String(d.memberId), (doc) => {
          if (!doc) return null;
          const { _id, _pos, ...rest } = doc;
          return decided({ ...rest, VerifiedPhone: d.phone, UpdatedAt: d.at });
        });
        return;
      }
    }
  },
});
