import type { TenantScope } from '../../src/ports/read-models.ts';
import type { MemberDoc } from '../../projections/members/index.ts';
import { profiles } from '../../projections/profile/index.ts';

/**
 * The member's current phone number: the profile's `Phone` (changed by `PUT /v1/me`) when the profile read
 * model has the member, else the phone given at sign-up. Null when there is none.
 */
export async function currentPhone(db: TenantScope, member: MemberDoc): Promise<string | null> {
  const profile = await profiles(db).findById(String(member.Id));
  const phone = profile ? profile.Phone : member.Phone;
  return typeof phone === 'string' && phone.trim() !== '' ? phone.trim() : null;
}
