import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { defineDocumentProjection } from '../../src/projector/projection.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import { dtoName, emptyProfile, PROFILE_KEYS, type ProfileFields } from '../../commands/profile/fields.ts';
import { memberEvents } from '../../commands/members/events.ts';
import { profileEvents } from '../../commands/profile/events.ts';
import { phoneVerificationEvents } from '../../commands/phone-verification/events.ts';

/** The bidders' profiles: one document per member, `_id` = the member id. */
export const PROFILES = 'profiles';

/** The writable MemberDto fields, by their DTO names (`VATNumber`, `FirstName`, ...). */
export type ProfileDtoFields = { [K in keyof ProfileFields as K extends 'vatNumber' ? 'VATNumber' : Capitalize<K & string>]: ProfileFields[K] };

/** The last VAT check that counted, as recorded. */
export interface VatCheckDoc {
  CheckId: string;
  VatNumber: string;
  Valid: boolean;
  Country: string | null;
  Source: 'format' | 'vies';
  VatFree: boolean;
  CheckedAt: string;
}

/**
 * A member's profile: the writable MemberDto fields (from the sign-up until the member replaces them), and the
 * decisions the service owns: `VatFree` (the last VAT check of the current number says so) and
 * `SmsVerificationCompleted` (the current phone is the last verified one). Other features read `VatFree`
 * (invoices) and `Phone` (notifications, E.164 when it parses).
 */
export type ProfileData = ProfileDtoFields & {
  MemberId: number;
  Phone: string | null;
  VatFree: boolean;
  SmsVerificationCompleted: boolean;
  /** The phone verified last; cleared when the profile's phone changes. */
  VerifiedPhone: string | null;
  LastVatCheck: VatCheckDoc | null;
  UpdatedAt: string;
};
export interface ProfileDoc extends Doc, ProfileData {}

export const profiles = (db: TenantScope) => db.collection<ProfileDoc>(PROFILES);

/** A phone number as a sign-up gave it: E.164 when it parses as an international number, else as typed (empty: null). */
export function signUpPhone(raw: string): string | null {
  const text = raw.trim();
  if (!text) return null;
  const parsed = parsePhoneNumberFromString(text);
  return parsed?.isValid() ? parsed.number : text;
}

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

export const profilesProjection = defineDocumentProjection({
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
            LastVatCheck: { CheckId: d.checkId, VatNumber: d.vatNumber, Valid: d.valid, Country: d.country, Source: d.source, VatFree: d.vatFree, CheckedAt: d.at },
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
