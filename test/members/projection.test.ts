import { membersReadModels } from '../../projections/members/index.ts';
import type { MemberEvent } from '../../commands/members/events.ts';
import { createdAt, givenEvents } from '../support/projection-spec.ts';

const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
const HASH = 'scrypt$16384$8$1$c2FsdA$aGFzaA';
const NEW_HASH = 'scrypt$16384$8$1$c2FsdDI$aGFzaDI';
const uid = (memberId: number) => `0b6c3f7a-2d4e-4f1a-8b9c-5e6d7f8a9b0${memberId}`;

const signedUp = (memberId: number, email: string, tenant = 'demo'): MemberEvent => ({
  type: 'MemberSignedUp',
  data: {
    tenant,
    memberId,
    uid: uid(memberId),
    email,
    passwordHash: HASH,
    firstName: 'Ada',
    lastName: 'Lovelace',
    language: 'en',
    phone: '+31 6 1234 5678',
    signedUpAt: at(0),
  },
});
const confirmed = (memberId: number, minute: number, tenant = 'demo'): MemberEvent => ({
  type: 'MemberEmailConfirmed',
  data: { tenant, memberId, at: at(minute) },
});
const granted = (memberId: number, role: 'bidder' | 'consigner', minute: number): MemberEvent => ({
  type: 'MemberRoleGranted',
  data: { tenant: 'demo', memberId, role, at: at(minute) },
});
const removed = (memberId: number, minute: number, tenant = 'demo'): MemberEvent => ({
  type: 'MemberRemoved',
  data: { tenant, memberId, at: at(minute) },
});
const passwordChanged = (memberId: number, minute: number): MemberEvent => ({
  type: 'MemberPasswordChanged',
  data: { tenant: 'demo', memberId, keyId: '3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', passwordHash: NEW_HASH, at: at(minute) },
});

/** The account a sign-up at `position` of the given events makes. */
const account = (memberId: number, email: string, position: number) => ({
  _id: String(memberId),
  Id: memberId,
  UID: uid(memberId),
  Email: email,
  PasswordHash: HASH,
  FirstName: 'Ada',
  LastName: 'Lovelace',
  Language: 'en',
  Phone: '+31 6 1234 5678',
  Validated: false,
  Roles: [],
  DateRegistered: at(0),
  Created: createdAt(position),
  SessionsValidFrom: null,
});

describe('members projection', () => {
  it('makes an unconfirmed account without roles for a sign-up, its address lower-cased', async () => {
    await givenEvents(signedUp(1, 'Ada@Example.COM'))
      .whenProjected(membersReadModels)
      .thenDocuments('members', 'demo', [account(1, 'ada@example.com', 1)]);
  });

  it('marks the account validated once the address is confirmed, and adds each role once', async () => {
    await givenEvents(
      signedUp(1, 'ada@example.com'),
      confirmed(1, 5),
      granted(1, 'bidder', 6),
      granted(1, 'consigner', 7),
      granted(1, 'bidder', 8),
    )
      .whenProjected(membersReadModels)
      .thenDocuments('members', 'demo', [{ ...account(1, 'ada@example.com', 1), Validated: true, Roles: ['bidder', 'consigner'] }]);
  });

  it("keeps the new password hash and ends the member's earlier sessions when the password changes", async () => {
    await givenEvents(signedUp(1, 'ada@example.com'), passwordChanged(1, 9))
      .whenProjected(membersReadModels)
      .thenDocuments('members', 'demo', [{ ...account(1, 'ada@example.com', 1), PasswordHash: NEW_HASH, SessionsValidFrom: at(9) }]);
  });

  it('deletes a removed member, and changes nothing for events of a member it does not hold', async () => {
    await givenEvents(
      signedUp(1, 'ada@example.com'),
      signedUp(2, 'bob@example.com'),
      removed(1, 3),
      confirmed(1, 4),
      granted(3, 'bidder', 5),
    )
      .whenProjected(membersReadModels)
      .thenDocuments('members', 'demo', [{ ...account(2, 'bob@example.com', 2) }]);
  });

  it('ignores the events of the sign-up process it has no field for (an address claimed)', async () => {
    await givenEvents<MemberEvent>({
      type: 'MemberEmailClaimed',
      data: { tenant: 'demo', email: 'ada@example.com', memberId: 1, at: at(0) },
    })
      .whenProjected(membersReadModels)
      .thenNoDocuments();
  });

  it("keeps each tenant's members apart: removing member 1 of one tenant leaves member 1 of the other", async () => {
    await givenEvents(signedUp(1, 'ada@example.com'), signedUp(1, 'ada@example.com', 'demo2'), confirmed(1, 2, 'demo2'), removed(1, 3))
      .whenProjected(membersReadModels)
      .thenDocuments('members', 'demo', [])
      .thenDocuments('members', 'demo2', [{ ...account(1, 'ada@example.com', 2), Validated: true }]);
  });
});
