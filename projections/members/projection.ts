import { defineDocumentProjection } from '../../src/projector/projection.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import { memberEvents, normalizeEmail } from '../../commands/members/events.ts';

/**
 * The member read model. PasswordHash is here for sign-in only; the profile query maps documents to
 * MemberDto through an allow-list, so the hash never leaves the service. Confirmation and reset keys are
 * not here at all: only the member's stream holds their hashes.
 */
export interface MemberDoc extends Doc {
  Id: number;
  UID: string;
  /** Trimmed and lower-case: sign-in, availability and resets look members up by it. */
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
  /**
   * When the member's sessions were last ended (a password reset), RFC 3339; null (or absent, on documents
   * written before it existed) when never. A member token is accepted only if it was issued by a sign-in
   * that saw this same value (src/http/auth.ts).
   */
  SessionsValidFrom?: string | null;
}

/** The member accounts, and the typed accessor sign-in, sessions and jobs use. */
export const MEMBERS = 'members';
export const memberAccounts = (db: TenantScope) => db.collection<MemberDoc>(MEMBERS);
/** The account of an email address, matched as addresses are stored (trimmed, lower-case). */
export const memberByEmail = (db: TenantScope, email: string) => memberAccounts(db).findOne({ Email: normalizeEmail(email) });

export const membersProjection = defineDocumentProjection({
  name: 'members',
  events: [memberEvents],
  handles: ['MemberSignedUp', 'MemberEmailConfirmed', 'MemberRoleGranted', 'MemberRemoved', 'MemberPasswordChanged'],
  collections: [{ name: MEMBERS, indexes: [{ fields: ['Email'] }] }],
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
