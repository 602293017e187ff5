import { z } from 'zod';
import { defineEvent, isoDateTime, languageCode, positiveId, tenantId, type EventOf } from '../../src/events/define.ts';

export const MemberSignedUp = defineEvent({
  type: 'MemberSignedUp',
  version: 1,
  stream: 'member-{tenant}-{memberId}',
  description: 'A bidder account was created (sign-up, or an import of existing accounts). Holds a scrypt hash of the password, never the password.',
  schema: z.object({
    tenant: tenantId,
    memberId: positiveId,
    uid: z.uuid(),
    email: z.email().max(320),
    passwordHash: z.string().min(1),
    firstName: z.string().max(200),
    lastName: z.string().max(200),
    language: languageCode,
    phone: z.string().max(50),
    signedUpAt: isoDateTime,
  }),
});

export const MemberEmailConfirmed = defineEvent({
  type: 'MemberEmailConfirmed',
  version: 1,
  stream: 'member-{tenant}-{memberId}',
  description: 'The bidder confirmed their email address (sets Validated).',
  schema: z.object({ tenant: tenantId, memberId: positiveId, at: isoDateTime }),
});

export const MemberRoleGranted = defineEvent({
  type: 'MemberRoleGranted',
  version: 1,
  stream: 'member-{tenant}-{memberId}',
  description: 'Back office: the member was given a role (`bidder`, `consigner`).',
  schema: z.object({ tenant: tenantId, memberId: positiveId, role: z.enum(['bidder', 'consigner']), at: isoDateTime }),
});

export const MemberRemoved = defineEvent({
  type: 'MemberRemoved',
  version: 1,
  stream: 'member-{tenant}-{memberId}',
  description: 'Back office: the account was removed; its tokens stop working at once (401).',
  schema: z.object({ tenant: tenantId, memberId: positiveId, at: isoDateTime }),
});

export const memberEvents = [MemberSignedUp, MemberEmailConfirmed, MemberRoleGranted, MemberRemoved] as const;
export type MemberEvent = EventOf<(typeof memberEvents)[number]>;
