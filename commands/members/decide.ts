import { timingSafeEqual } from 'node:crypto';
import type { Decider } from '../../src/decider.ts';
import type { EventOf } from '../../src/events/define.ts';
import { ConflictError, ValidationError } from '../../src/errors.ts';
import { assertNever } from '../../src/assert-never.ts';
import { memberEvents, type MemberEvent, type MemberSignedUp, type MessageDeliveryFailed } from './events.ts';

type SignUpData = EventOf<typeof MemberSignedUp>['data'];

/** The one answer to a confirmation or reset key that does not work, whatever the reason (and for an unknown email). */
export const BAD_KEY_DETAIL = 'The key is wrong, used or expired.';
export const badKey = () =>
  new ValidationError(BAD_KEY_DETAIL, [{ field: 'body.Key', message: 'is wrong, used or expired' }], { code: 'key-invalid' });

export const EMAIL_TAKEN_DETAIL = 'This email address is already registered.';

/** A one-time key as the member's stream remembers it: the SHA-256 of the key and when it stops working. */
export interface IssuedKey {
  keyId: string;
  keyHash: string;
  expiresAt: string;
}

export interface MemberState {
  exists: boolean;
  removed: boolean;
  /** The member id was closed by a sign-up that never completed (MemberSignUpAbandoned). */
  abandoned: boolean;
  email: string | null;
  /** For the greeting of the account mails. */
  firstName: string;
  /** Chosen at sign-up (the profile may change it later: projections/profile memberLanguage). */
  language: string | null;
  confirmed: boolean;
  roles: Set<string>;
  /** The confirmation key of the sign-up, until it is used. */
  confirmationKey: IssuedKey | null;
  /** The newest reset key, until it is used; a newer one voids it. */
  resetKey: (IssuedKey & { requestedAt: string }) | null;
  /** The request time of the newest reset key ever issued (an older request arriving late issues nothing). */
  lastResetRequestedAt: string | null;
  /** Every reset key id issued, so that a retried job issues its key once. */
  resetKeyIds: Set<string>;
  /** Failed deliveries recorded, as `deliveryId at`: a delivery job that runs again records its failure once. */
  deliveryFailures: Set<string>;
}

/** Raised when a sign-up's random member id turns out to be in use: the caller draws another one. */
export class MemberIdTaken extends Error {
  constructor(readonly memberId: number) {
    super(`member id ${memberId} is in use`);
    this.name = 'MemberIdTaken';
  }
}

export type MemberCommand =
  /** Bringing an existing account in from the back office (intake), idempotently. */
  | { type: 'ImportMember'; signUp: SignUpData; confirmed: boolean; roles: Array<'bidder' | 'consigner'>; at: string }
  | { type: 'RemoveMember'; tenant: string; memberId: number; at: string }
  /** POST /v1/members: a new account under a freshly drawn id, with the key of its confirmation mail. */
  | { type: 'SignUp'; signUp: SignUpData; confirmationKey: { keyId: string; keyHash: string }; at: string; expiresAt: string }
  /** Closes the id of a sign-up that claimed an email and never created its member. */
  | { type: 'AbandonSignUp'; tenant: string; memberId: number; email: string; at: string }
  /** POST /v1/members/confirmation: `keyHash` is the SHA-256 of the presented key. */
  | { type: 'ConfirmEmail'; tenant: string; memberId: number; keyHash: string; at: string }
  /** The background job of POST /v1/password-resets. */
  | {
      type: 'IssuePasswordResetKey';
      tenant: string;
      memberId: number;
      keyId: string;
      keyHash: string;
      requestedAt: string;
      at: string;
      expiresAt: string;
    }
  /** POST /v1/password-resets/confirmation: `keyHash` is the SHA-256 of the presented key. */
  | { type: 'ResetPassword'; tenant: string; memberId: number; keyHash: string; passwordHash: string; at: string }
  /** The delivery job of a message to the member that ended undelivered (`at`: when it ended, the same on a rerun). */
  | { type: 'RecordDeliveryFailed'; failure: EventOf<typeof MessageDeliveryFailed>['data'] };

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** Whether a presented key (its SHA-256) opens this key at this time. */
export function keyWorks(key: IssuedKey | null, presentedHash: string, at: string): boolean {
  if (!key) return false;
  const matches = sameHash(key.keyHash, presentedHash);
  return matches && Date.parse(at) < Date.parse(key.expiresAt);
}

/** Whether a reset with this key would be accepted now (the decider decides; this lets a caller skip slow work first). */
export function resetKeyWorks(state: MemberState, presentedHash: string, at: string): boolean {
  return state.exists && !state.removed && keyWorks(state.resetKey, presentedHash, at);
}

export const memberDecider: Decider<MemberState, MemberCommand, MemberEvent> = {
  events: memberEvents,
  initialState: () => ({
    exists: false,
    removed: false,
    abandoned: false,
    email: null,
    firstName: '',
    language: null,
    confirmed: false,
    roles: new Set(),
    confirmationKey: null,
    resetKey: null,
    lastResetRequestedAt: null,
    resetKeyIds: new Set(),
    deliveryFailures: new Set(),
  }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'MemberSignedUp':
        return {
          ...state,
          exists: true,
          email: event.data.email.toLowerCase(),
          firstName: event.data.firstName,
          language: event.data.language,
        };
      case 'MemberSignUpAbandoned':
        return { ...state, abandoned: true };
      case 'MemberConfirmationKeyIssued':
        return { ...state, confirmationKey: { keyId: event.data.keyId, keyHash: event.data.keyHash, expiresAt: event.data.expiresAt } };
      case 'MemberEmailConfirmed':
        return { ...state, confirmed: true, confirmationKey: null };
      case 'MemberRoleGranted':
        return { ...state, roles: new Set(state.roles).add(event.data.role) };
      case 'MemberRemoved':
        return { ...state, removed: true };
      case 'PasswordResetKeyIssued': {
        const d = event.data;
        return {
          ...state,
          resetKey: { keyId: d.keyId, keyHash: d.keyHash, expiresAt: d.expiresAt, requestedAt: d.requestedAt },
          lastResetRequestedAt: d.requestedAt,
          resetKeyIds: new Set(state.resetKeyIds).add(d.keyId),
        };
      }
      case 'MemberPasswordChanged':
        return { ...state, resetKey: null };
      case 'MessageDeliveryFailed':
        return { ...state, deliveryFailures: new Set(state.deliveryFailures).add(`${event.data.deliveryId} ${event.data.at}`) };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'ImportMember': {
        if (state.removed) return [];
        if (state.abandoned)
          throw new ConflictError('member-email-mismatch', `Member id ${command.signUp.memberId} is closed (an abandoned sign-up).`);
        const { tenant, memberId } = command.signUp;
        if (state.exists && state.email !== command.signUp.email.toLowerCase())
          throw new ConflictError('member-email-mismatch', `Member ${memberId} exists with another email address.`);
        const events: MemberEvent[] = [];
        if (!state.exists) events.push({ type: 'MemberSignedUp', data: command.signUp });
        if (command.confirmed && !state.confirmed)
          events.push({ type: 'MemberEmailConfirmed', data: { tenant, memberId, at: command.at } });
        for (const role of command.roles)
          if (!state.roles.has(role)) events.push({ type: 'MemberRoleGranted', data: { tenant, memberId, role, at: command.at } });
        return events;
      }
      case 'RemoveMember':
        if (!state.exists || state.removed) return [];
        return [{ type: 'MemberRemoved', data: { tenant: command.tenant, memberId: command.memberId, at: command.at } }];
      case 'SignUp': {
        const { tenant, memberId } = command.signUp;
        if (state.exists || state.abandoned || state.removed) throw new MemberIdTaken(memberId);
        return [
          { type: 'MemberSignedUp', data: command.signUp },
          {
            type: 'MemberConfirmationKeyIssued',
            data: { tenant, memberId, ...command.confirmationKey, issuedAt: command.at, expiresAt: command.expiresAt },
          },
        ];
      }
      case 'AbandonSignUp':
        // Only an id that nothing was ever appended to: a sign-up that completed meanwhile keeps its member.
        if (state.exists || state.abandoned || state.removed) return [];
        return [
          {
            type: 'MemberSignUpAbandoned',
            data: { tenant: command.tenant, memberId: command.memberId, email: command.email, at: command.at },
          },
        ];
      case 'ConfirmEmail':
        if (!state.exists || state.removed || state.confirmed || !keyWorks(state.confirmationKey, command.keyHash, command.at))
          throw badKey();
        return [{ type: 'MemberEmailConfirmed', data: { tenant: command.tenant, memberId: command.memberId, at: command.at } }];
      case 'IssuePasswordResetKey': {
        if (!state.exists || state.removed) return [];
        // A retried job, or a request older than the newest key (arriving late): nothing new.
        if (state.resetKeyIds.has(command.keyId)) return [];
        if (state.lastResetRequestedAt !== null && Date.parse(state.lastResetRequestedAt) > Date.parse(command.requestedAt)) return [];
        const { tenant, memberId, keyId, keyHash, requestedAt, at, expiresAt } = command;
        return [{ type: 'PasswordResetKeyIssued', data: { tenant, memberId, keyId, keyHash, requestedAt, issuedAt: at, expiresAt } }];
      }
      case 'ResetPassword': {
        if (!resetKeyWorks(state, command.keyHash, command.at)) throw badKey();
        const { tenant, memberId, at } = command;
        const events: MemberEvent[] = [
          {
            type: 'MemberPasswordChanged',
            data: { tenant, memberId, keyId: state.resetKey!.keyId, passwordHash: command.passwordHash, at },
          },
        ];
        // The reset key reached the member's mailbox: that confirms the address as the confirmation key would.
        if (!state.confirmed) events.push({ type: 'MemberEmailConfirmed', data: { tenant, memberId, at } });
        return events;
      }
      case 'RecordDeliveryFailed': {
        const failure = command.failure;
        // Nobody to record it on (a removed member), or recorded by an earlier run of the same job.
        if (!state.exists || state.removed || state.deliveryFailures.has(`${failure.deliveryId} ${failure.at}`)) return [];
        return [{ type: 'MessageDeliveryFailed', data: failure }];
      }
      default:
        return assertNever(command);
    }
  },
};

/** Who holds an email address of a tenant: the member id of the newest claim. */
export interface EmailClaimState {
  holder: { memberId: number; at: string } | null;
}

export type EmailClaimCommand = {
  type: 'ClaimEmail';
  tenant: string;
  email: string;
  memberId: number;
  at: string;
  /**
   * The member id the caller found holding the address and proved free (removed, an abandoned sign-up,
   * or the caller's own earlier claim under an id it could not use); null when it found no claim.
   */
  replacing: number | null;
};

export const emailClaimDecider: Decider<EmailClaimState, EmailClaimCommand, MemberEvent> = {
  events: memberEvents,
  initialState: () => ({ holder: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'MemberEmailClaimed':
        return { holder: { memberId: event.data.memberId, at: event.data.at } };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'ClaimEmail': {
        const claim: MemberEvent = {
          type: 'MemberEmailClaimed',
          data: { tenant: command.tenant, email: command.email, memberId: command.memberId, at: command.at },
        };
        if (!state.holder) return [claim];
        if (state.holder.memberId === command.memberId) return [];
        // Taken over only from the holder the caller proved free; anyone else (a claim that moved meanwhile) keeps it.
        if (command.replacing !== null && state.holder.memberId === command.replacing) return [claim];
        throw new ConflictError('email-taken', EMAIL_TAKEN_DETAIL);
      }
      default:
        return assertNever(command.type);
    }
  },
};
