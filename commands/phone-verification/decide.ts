import type { Decider } from '../../src/decider.ts';
import { TooManyRequestsError, ValidationError } from '../../src/errors.ts';
import { assertNever } from '../../src/assert-never.ts';
import { phoneVerificationEvents, type PhoneVerificationEvent } from './events.ts';

/** How long a code is valid, how many wrong codes void it, and how many codes a member may ask for in a window. */
export const CODE_TTL_MS = 10 * 60_000;
export const MAX_FAILED_ATTEMPTS = 5;
export const CODES_PER_WINDOW = 3;
export const CODE_WINDOW_MS = 60 * 60_000;

export interface IssuedCode {
  codeId: string;
  phone: string;
  expiresAt: string;
  failedAttempts: number;
  used: boolean;
}

/** A member's phone verification stream: the current code (each new one replaces the last), recent issue times, the last verified phone. */
export interface PhoneVerificationState {
  current: IssuedCode | null;
  /** When the last few codes were issued (the newest last; at most CODES_PER_WINDOW kept). */
  issuedAt: string[];
  verifiedPhone: string | null;
}

export type PhoneVerificationCommand =
  | { type: 'IssueCode'; tenant: string; memberId: number; codeId: string; phone: string; at: string }
  | {
      type: 'ConfirmCode';
      tenant: string;
      memberId: number;
      /** The code as presented (6 digits). */
      code: string;
      /** Whether `code` is the code of a given code id (derived with the server secret; compared in constant time). */
      codeMatches: (codeId: string, code: string) => boolean;
      /** The profile's phone now (E.164), or null. */
      currentPhone: string | null;
      at: string;
    }
  | { type: 'ImportVerifiedPhone'; tenant: string; memberId: number; phone: string; at: string };

const field = 'body.Code';

export const phoneVerificationDecider: Decider<PhoneVerificationState, PhoneVerificationCommand, PhoneVerificationEvent> = {
  events: phoneVerificationEvents,
  initialState: () => ({ current: null, issuedAt: [], verifiedPhone: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'PhoneVerificationCodeIssued': {
        const d = event.data;
        return {
          ...state,
          current: { codeId: d.codeId, phone: d.phone, expiresAt: d.expiresAt, failedAttempts: 0, used: false },
          issuedAt: [...state.issuedAt, d.at].slice(-CODES_PER_WINDOW),
        };
      }
      case 'PhoneVerificationCodeRejected':
        if (state.current?.codeId !== event.data.codeId) return state;
        return { ...state, current: { ...state.current, failedAttempts: event.data.failedAttempts } };
      case 'MemberPhoneVerified': {
        const current = state.current && state.current.codeId === event.data.codeId ? { ...state.current, used: true } : state.current;
        return { ...state, current, verifiedPhone: event.data.phone };
      }
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'IssueCode': {
        const { tenant, memberId, codeId, phone, at } = command;
        const now = Date.parse(at);
        const recent = state.issuedAt.filter((t) => Date.parse(t) > now - CODE_WINDOW_MS);
        if (recent.length >= CODES_PER_WINDOW) {
          const retryAfter = Math.max(1, Math.ceil((Date.parse(recent[0]) + CODE_WINDOW_MS - now) / 1000));
          throw new TooManyRequestsError(`At most ${CODES_PER_WINDOW} codes an hour; try again later.`, retryAfter);
        }
        const expiresAt = new Date(now + CODE_TTL_MS).toISOString();
        return [{ type: 'PhoneVerificationCodeIssued', data: { tenant, memberId, codeId, phone, expiresAt, at } }];
      }
      case 'ConfirmCode': {
        const { tenant, memberId, at } = command;
        const code = state.current;
        if (!code || code.used || code.failedAttempts >= MAX_FAILED_ATTEMPTS || Date.parse(at) >= Date.parse(code.expiresAt))
          throw new ValidationError(
            'The code is wrong, expired or already used; request a new one.',
            [{ field, message: 'no valid code: request a new one (POST /v1/me/phone-verification)' }],
            { code: 'verification-code-invalid' },
          );
        if (code.phone !== command.currentPhone)
          throw new ValidationError(
            'The code was sent to another phone number than the profile has now; request a new one.',
            [{ field, message: 'sent to a phone number the profile no longer has' }],
            { code: 'verification-code-invalid' },
          );
        if (!command.codeMatches(code.codeId, command.code))
          return [
            {
              type: 'PhoneVerificationCodeRejected',
              data: { tenant, memberId, codeId: code.codeId, failedAttempts: code.failedAttempts + 1, at },
            },
          ];
        return [{ type: 'MemberPhoneVerified', data: { tenant, memberId, codeId: code.codeId, phone: code.phone, at } }];
      }
      case 'ImportVerifiedPhone': {
        if (state.verifiedPhone === command.phone) return [];
        const { tenant, memberId, phone, at } = command;
        return [{ type: 'MemberPhoneVerified', data: { tenant, memberId, codeId: null, phone, at } }];
      }
      default:
        return assertNever(command);
    }
  },
};
