import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { memberEvents, normalizeEmail } from '../../commands/members/events.ts';
import { type MemberDoc, MEMBERS } from './collections.ts';

export const membersProjection = defineDocumentProjection({
  name: 'members',
  events: [memberEvents],
  handles: ['MemberSignedUp', 'MemberEmailConfirmed', 'MemberRoleGranted', 'MemberRemoved', 'MemberPasswordChanged'],
  collections: [{ name: MEMBERS, indexes: [{ fields: ['Email'] }], private: ['PasswordHash'] }],
  async apply(event, uow) {
    switch (event.type) {
      case 'MemberSignedUp': {
        const d = event.data;
        await uow.update<MemberDoc>(MEMBERS, d.tenant, String(d.memberId), () => ({
          Id: d.memberId,
          UID: d.uid,
          Email: normalizeEmail(d.email),
          PasswordHash: d.passwordHash,
          FirstName: d.firstName,
          LastName: d.lastName,
          Language: d.language,
          Phone: d.phone,
          Validated: false,
          Roles: [],
          DateRegistered: d.signedUpAt,
          Created: event.created,
          SessionsValidFrom: null,
        }));
        return;
      }
      case 'MemberEmailConfirmed':
        await uow.update<MemberDoc>(MEMBERS, event.data.tenant, String(event.data.memberId), (doc) =>
          doc ? { ...doc, Validated: true } : null,
        );
        return;
      case 'MemberRoleGranted': {
        const role = event.data.role;
        await uow.update<MemberDoc>(MEMBERS, event.data.tenant, String(event.data.memberId), (doc) =>
          doc ? { ...doc, Roles: doc.Roles.includes(role) ? doc.Roles : [...doc.Roles, role] } : null,
        );
        return;
      }
      case 'MemberPasswordChanged': {
        const d = event.data;
        await uow.update<MemberDoc>(MEMBERS, d.tenant, String(d.memberId), (doc) =>
          doc ? { ...doc, PasswordHash: d.passwordHash, SessionsValidFrom: d.at } : null,
        );
        return;
      }
      case 'MemberRemoved':
        await uow.update<MemberDoc>(MEMBERS, event.data.tenant, String(event.data.memberId), () => null);
        return;
    }
  },
});
