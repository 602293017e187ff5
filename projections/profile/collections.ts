import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import type { ProfileFields } from '../../commands/profile/events.ts';

/** The bidders' profiles: one document per member, `_id` = the member id. */
export const PROFILES = 'profiles';

/** The writable MemberDto fields, by their DTO names (`VATNumber`, `FirstName`, ...). */
export type ProfileDtoFields = {
  [K in keyof ProfileFields as K extends 'vatNumber' ? 'VATNumber' : Capitalize<K & string>]: ProfileFields[K];
};

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

/** A member's profile; null before the profile projection has their sign-up. */
export const profileOf = (db: TenantScope, memberId: number) => profiles(db).findById(String(memberId));

/** A phone number as a sign-up gave it: E.164 when it parses as an international number, else as typed (empty: null). */
export function signUpPhone(raw: string): string | null {
  const text = raw.trim();
  if (!text) return null;
  const parsed = parsePhoneNumberFromString(text);
  return parsed?.isValid() ? parsed.number : text;
}

/** The language a member reads: the profile's, else the one chosen at sign-up (mail and SMS are written in it). */
export async function memberLanguage(db: TenantScope, member: { Id: number; Language: string }): Promise<string> {
  const profile = await profiles(db).findById(String(member.Id));
  return profile?.Language || member.Language;
}

/** The time zone a member's mails give times in: the profile's (an IANA name), else UTC. */
export async function memberTimeZone(db: TenantScope, memberId: number): Promise<string> {
  const zone = (await profiles(db).findById(String(memberId)))?.Timezone;
  if (!zone) return 'UTC';
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return 'UTC'; // written before zones were checked: UTC rather than a mail that cannot be written
  }
}
