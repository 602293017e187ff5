import type { DocumentProjection } from '../../src/projector/projection.ts';
import { asAppEvent } from '../../src/events/registry.ts';
import type { Doc } from '../../src/ports/read-models.ts';

/**
 * The member read model. PasswordHash is here for sign-in only; the profile query maps documents to
 * MemberDto through an allow-list, so the hash never leaves the service.
 */
export interface MemberDoc extends Doc {
  Id: number;
  UID: string;
  Email: string;
  PasswordHash: string;
  FirstName: string;
  LastName: string;
  Language: string;
  Phone: string;
  Validated: boolean;
  Roles: string[];
  DateRegistered: string;
  Created: string;
}

export const membersProjection: DocumentProjection = {
  kind: 'documents',
  name: 'members',
  collections: [{ name: 'members', indexes: [{ fields: ['Email'] }] }],
  handles: ['MemberSignedUp', 'MemberEmailConfirmed', 'MemberRoleGranted', 'MemberRemoved'],
  async apply(recorded, uow) {
    const event = asAppEvent(recorded);
    switch (event.type) {
      case 'MemberSignedUp': {
        const d = event.data;
        await uow.update<MemberDoc>('members', d.tenant, String(d.memberId), () => ({
          Id: d.memberId,
          UID: d.uid,
          Email: d.email.toLowerCase(),
          PasswordHash: d.passwordHash,
          FirstName: d.firstName,
          LastName: d.lastName,
          Language: d.language,
          Phone: d.phone,
          Validated: false,
          Roles: [],
          DateRegistered: d.signedUpAt,
          Created: recorded.created,
        }));
        return;
      }
      case 'MemberEmailConfirmed':
        await uow.update<MemberDoc>('members', event.data.tenant, String(event.data.memberId), (doc) =>
          doc ? { ...doc, Validated: true } : null,
        );
        return;
      case 'MemberRoleGranted': {
        const role = event.data.role;
        await uow.update<MemberDoc>('members', event.data.tenant, String(event.data.memberId), (doc) =>
          doc ? { ...doc, Roles: doc.Roles.includes(role) ? doc.Roles : [...doc.Roles, role] } : null,
        );
        return;
      }
      case 'MemberRemoved':
        await uow.update<MemberDoc>('members', event.data.tenant, String(event.data.memberId), () => null);
        return;
    }
  },
};
