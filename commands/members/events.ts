import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, languageCode, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

/** A member's stream: its account, keys and password. */
export const memberStreamId = (tenant: string, memberId: number) => `member-${tenant}-${memberId}`;

/** An email address as the service compares it: trimmed and lower-case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * The stream that claims one email address of a tenant, so that no two members share it: named by the
 * SHA-256 of the normalised address (any address makes a valid, fixed-length stream name).
 */
export const memberEmailStreamId = (tenant: string, email: string) =>
  `member-email-${tenant}-${createHash('sha256').update(normalizeEmail(email), 'utf8').digest('hex')}`;

/** A one-time key as events hold it: the random id it is derived from (useless without the server secret) and its SHA-256. */
const keyId = z.uuid();
const keyHash = z.string().regex(/^[a-f0-9]{64}$/, 'the SHA-256 of the key, in hex');

export const MemberSignedUp = defineEvent({
  type: 'MemberSignedUp',
  version: 1,
  stream: 'member-{tenant}-{memberId}',
  private: ['passwordHash'],
  description:
    'A bidder account was created (sign-up, or an import of existing accounts). Holds a scrypt hash of the password, never the password.',
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
  description:
    'The bidder confirmed their email address (sets Validated): with the key of the confirmation mail, with the key of a password-reset mail (which proves the same), or by an import of a confirmed account.',
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
  description: 'Back office: the account was removed; its tokens stop working at once (401), and its email address may sign up again.',
  schema: z.object({ tenant: tenantId, memberId: positiveId, at: isoDateTime }),
});

export const MemberEmailClaimed = defineEvent({
  type: 'MemberEmailClaimed',
  version: 1,
  stream: 'member-email-{tenant}-{sha256(email)}',
  description:
    'An email address was reserved for a member id (a sign-up, or an import), before that member was created, so that two members of a tenant never share an address. ' +
    'A later claim of the same address takes it over only from a member that was removed, or from a sign-up that never created its member (see MemberSignUpAbandoned).',
  schema: z.object({ tenant: tenantId, email: z.email().max(320), memberId: positiveId, at: isoDateTime }),
});

export const MemberSignUpAbandoned = defineEvent({
  type: 'MemberSignUpAbandoned',
  version: 1,
  stream: 'member-{tenant}-{memberId}',
  description:
    'A sign-up claimed an email address for this member id but never created the member (its process stopped between the two appends). ' +
    'The member id is closed for good (a late MemberSignedUp can no longer be appended to it), and the address may be claimed again.',
  schema: z.object({ tenant: tenantId, memberId: positiveId, email: z.email().max(320), at: isoDateTime }),
});

export const MemberConfirmationKeyIssued = defineEvent({
  type: 'MemberConfirmationKeyIssued',
  version: 1,
  stream: 'member-{tenant}-{memberId}',
  private: ['keyId', 'keyHash'],
  description:
    'A key to confirm the email address was made at sign-up and mailed to the member; valid until `expiresAt` (24 hours), once. ' +
    "Holds the random `keyId` the key is derived from with a server secret, and the key's SHA-256: never the key.",
  schema: z.object({ tenant: tenantId, memberId: positiveId, keyId, keyHash, issuedAt: isoDateTime, expiresAt: isoDateTime }),
});

export const PasswordResetKeyIssued = defineEvent({
  type: 'PasswordResetKeyIssued',
  version: 1,
  stream: 'member-{tenant}-{memberId}',
  private: ['keyId', 'keyHash'],
  description:
    'The member asked for a password reset (`requestedAt`) and a reset key was mailed; valid until `expiresAt` (1 hour), once. It voids every earlier reset key. ' +
    "Holds the random `keyId` the key is derived from with a server secret, and the key's SHA-256: never the key.",
  schema: z.object({
    tenant: tenantId,
    memberId: positiveId,
    keyId,
    keyHash,
    requestedAt: isoDateTime,
    issuedAt: isoDateTime,
    expiresAt: isoDateTime,
  }),
});

export const MemberPasswordChanged = defineEvent({
  type: 'MemberPasswordChanged',
  version: 1,
  stream: 'member-{tenant}-{memberId}',
  private: ['keyId', 'passwordHash'],
  description:
    'The member set a new password with the password-reset key `keyId` (used up by it). Holds a scrypt hash of the new password, never the password. ' +
    "Ends the member's sessions: member tokens issued before `at` stop working (401).",
  schema: z.object({ tenant: tenantId, memberId: positiveId, keyId, passwordHash: z.string().startsWith('scrypt$'), at: isoDateTime }),
});

/** Channels a message to a member goes by (`push` is reserved: the service sends none yet). */
export const deliveryChannels = ['mail', 'sms', 'push'] as const;
/** Why a message ended undelivered: its recipient refused it, the number is not one, or temporary failures outlasted its tries. */
export const deliveryFailureReasons = ['recipient-refused', 'invalid-number', 'gave-up'] as const;
export type DeliveryFailureReason = (typeof deliveryFailureReasons)[number];

export const MessageDeliveryFailed = defineEvent({
  type: 'MessageDeliveryFailed',
  version: 1,
  stream: 'member-{tenant}-{memberId}',
  description:
    'A message to the member ended undelivered, and is not tried again unless the operator retries it (`npm run deliveries -- retry ID`): ' +
    '`reason` `recipient-refused` (the mail server refused the address or the message, or Twilio the text), `invalid-number` (Twilio: not a valid or mobile number), ' +
    '`gave-up` (temporary failures for longer than the retries cover, about 8.5 hours). `template` is what the message was (`confirmation`, `password-reset`, `outbid`, ' +
    '`reminder`, `phone-code`, `invoice`, …); `deliveryId` the 32 hex digits of its `Message-ID` (the same on every try), the id the operator retries it by. ' +
    "A failure of the service's own set-up (a password or sender the server refuses, no connection) ends no message: the channel is down and its messages wait. " +
    "Never the address, the number or the server's reply.",
  schema: z.object({
    tenant: tenantId,
    memberId: positiveId,
    deliveryId: z.string().regex(/^[a-f0-9]{32}$/),
    channel: z.enum(deliveryChannels),
    template: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/),
    reason: z.enum(deliveryFailureReasons),
    at: isoDateTime,
  }),
});

export const memberEvents = defineEvents([
  MemberEmailClaimed,
  MemberSignedUp,
  MemberSignUpAbandoned,
  MemberConfirmationKeyIssued,
  MemberEmailConfirmed,
  MemberRoleGranted,
  MemberRemoved,
  PasswordResetKeyIssued,
  MemberPasswordChanged,
  MessageDeliveryFailed,
]);
export type MemberEvent = EventsOf<typeof memberEvents>;
