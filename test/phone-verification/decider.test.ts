/**
 * The phone verification decider: codes issued (at most 3 an hour, each replacing the last), confirmed with
 * the right, a wrong or an expired code, and verified phone numbers imported by the back office.
 */
import { expect } from 'chai';
import {
  CODE_TTL_MS,
  CODES_PER_WINDOW,
  MAX_FAILED_ATTEMPTS,
  phoneVerificationDecider,
  type PhoneVerificationCommand,
} from '../../commands/phone-verification/decide.ts';
import type { PhoneVerificationEvent } from '../../commands/phone-verification/events.ts';
import { TooManyRequestsError, ValidationError } from '../../src/errors.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const CODE_A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CODE_B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const CODE_C = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const phone = '+31612345678';
const otherPhone = '+31687654321';
const base = { tenant: 'demo', memberId: 1 };
/** A time so many minutes (and milliseconds) after `at`. */
const minutes = (n: number, ms = 0) => new Date(Date.parse(at) + n * 60_000 + ms).toISOString();

const issued = (codeId: string, when = at, to = phone): PhoneVerificationEvent => ({
  type: 'PhoneVerificationCodeIssued',
  data: { ...base, codeId, phone: to, expiresAt: new Date(Date.parse(when) + CODE_TTL_MS).toISOString(), at: when },
});
const rejected = (codeId: string, failedAttempts: number, when = at): PhoneVerificationEvent => ({
  type: 'PhoneVerificationCodeRejected',
  data: { ...base, codeId, failedAttempts, at: when },
});
const verified = (codeId: string | null, when = at, to = phone): PhoneVerificationEvent => ({
  type: 'MemberPhoneVerified',
  data: { ...base, codeId, phone: to, at: when },
});
/** Wrong codes given for a code id, one after another. */
const wrongCodes = (codeId: string, count: number) => Array.from({ length: count }, (_, i) => rejected(codeId, i + 1));

const issue = (codeId: string, when = at, to = phone): PhoneVerificationCommand => ({
  type: 'IssueCode',
  ...base,
  codeId,
  phone: to,
  at: when,
});
/** The code of each code id here is `123456` (the real one is derived from the code id with a server secret). */
const codeMatches = (_codeId: string, code: string) => code === '123456';
const confirm = (code: string, when = at, currentPhone: string | null = phone): PhoneVerificationCommand => ({
  type: 'ConfirmCode',
  ...base,
  code,
  codeMatches,
  currentPhone,
  at: when,
});
const importPhone = (to = phone, when = at): PhoneVerificationCommand => ({ type: 'ImportVerifiedPhone', ...base, phone: to, at: when });

/** The error a command throws on the stream of `events`. */
function refusal(events: PhoneVerificationEvent[], command: PhoneVerificationCommand): unknown {
  const state = events.reduce(phoneVerificationDecider.evolve, phoneVerificationDecider.initialState());
  try {
    phoneVerificationDecider.decide(command, state);
  } catch (error) {
    return error;
  }
  throw new Error('the command was not refused');
}

describe('phone verification decider', () => {
  describe('IssueCode', () => {
    it('issues a code to the phone number, valid for 10 minutes', () => {
      spec(phoneVerificationDecider)
        .given([])
        .when(issue(CODE_A))
        .then([issued(CODE_A)]);
    });

    it('issues a new code while an earlier one is still valid, and to another phone number', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A)])
        .when(issue(CODE_B, minutes(1), otherPhone))
        .then([issued(CODE_B, minutes(1), otherPhone)]);
    });

    it('issues a code after the phone was verified', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), verified(CODE_A, minutes(1))])
        .when(issue(CODE_B, minutes(2)))
        .then([issued(CODE_B, minutes(2))]);
    });

    it('refuses a 4th code within an hour, telling when the oldest of the three leaves the hour', () => {
      expect(CODES_PER_WINDOW).to.equal(3);
      const three = [issued(CODE_A, minutes(0)), issued(CODE_B, minutes(10)), issued(CODE_C, minutes(20))];
      spec(phoneVerificationDecider)
        .given(three)
        .when(issue(CODE_A, minutes(30)))
        .thenThrows(TooManyRequestsError, /At most 3 codes an hour/);
      expect(refusal(three, issue(CODE_A, minutes(30))))
        .to.be.instanceOf(TooManyRequestsError)
        .with.nested.property('extra.retryAfterSeconds', 30 * 60);
    });

    it('rounds the wait up to whole seconds, and waits at least one second', () => {
      const three = [issued(CODE_A, minutes(0)), issued(CODE_B, minutes(10)), issued(CODE_C, minutes(20))];
      expect(refusal(three, issue(CODE_A, minutes(59, 30_500))))
        .to.be.instanceOf(TooManyRequestsError)
        .with.nested.property('extra.retryAfterSeconds', 30);
      expect(refusal(three, issue(CODE_A, minutes(59, 59_999))))
        .to.be.instanceOf(TooManyRequestsError)
        .with.nested.property('extra.retryAfterSeconds', 1);
    });

    it('issues a code again once the oldest of the three is an hour old', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A, minutes(0)), issued(CODE_B, minutes(10)), issued(CODE_C, minutes(20))])
        .when(issue(CODE_A, minutes(60)))
        .then([issued(CODE_A, minutes(60))]);
    });

    it('counts only the codes of the last hour, however many were issued before', () => {
      const codes = [issued(CODE_A, minutes(0)), issued(CODE_B, minutes(70)), issued(CODE_C, minutes(80))];
      spec(phoneVerificationDecider)
        .given(codes)
        .when(issue(CODE_A, minutes(90)))
        .then([issued(CODE_A, minutes(90))]);
      const refused = [...codes, issued(CODE_A, minutes(90))];
      spec(phoneVerificationDecider)
        .given(refused)
        .when(issue(CODE_B, minutes(100)))
        .thenThrows(TooManyRequestsError, /try again later/);
      expect(refusal(refused, issue(CODE_B, minutes(100))))
        .to.be.instanceOf(TooManyRequestsError)
        .with.nested.property('extra.retryAfterSeconds', 30 * 60);
    });

    it('counts codes asked for, whether or not they were confirmed', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A, minutes(0)), verified(CODE_A, minutes(1)), issued(CODE_B, minutes(10)), issued(CODE_C, minutes(20))])
        .when(issue(CODE_A, minutes(30)))
        .thenThrows(TooManyRequestsError);
    });
  });

  describe('ConfirmCode', () => {
    it('verifies the phone the code was sent to with the right code', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A)])
        .when(confirm('123456', minutes(9)))
        .then([verified(CODE_A, minutes(9))]);
    });

    it('accepts the right code until the last millisecond before it expires, and refuses it when it expires', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A)])
        .when(confirm('123456', minutes(10, -1)))
        .then([verified(CODE_A, minutes(10, -1))]);
      spec(phoneVerificationDecider)
        .given([issued(CODE_A)])
        .when(confirm('123456', minutes(10)))
        .thenThrows(ValidationError, /wrong, expired or already used/);
    });

    it('refuses an expired code without counting a wrong one', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A)])
        .when(confirm('000000', minutes(11)))
        .thenThrows(ValidationError, /wrong, expired or already used/);
    });

    it('refuses any code when none was issued', () => {
      spec(phoneVerificationDecider)
        .given([])
        .when(confirm('123456'))
        .thenThrows(ValidationError, /request a new one/);
    });

    it('refuses a code that was used already', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), verified(CODE_A)])
        .when(confirm('123456', minutes(1)))
        .thenThrows(ValidationError, /already used/);
    });

    it('counts a wrong code against the current code', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A)])
        .when(confirm('000000'))
        .then([rejected(CODE_A, 1)]);
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), ...wrongCodes(CODE_A, 2)])
        .when(confirm('000000'))
        .then([rejected(CODE_A, 3)]);
    });

    it('accepts the right code after fewer than 5 wrong ones', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), ...wrongCodes(CODE_A, MAX_FAILED_ATTEMPTS - 1)])
        .when(confirm('123456'))
        .then([verified(CODE_A)]);
    });

    it('counts the 5th wrong code, and then refuses every code, the right one too', () => {
      expect(MAX_FAILED_ATTEMPTS).to.equal(5);
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), ...wrongCodes(CODE_A, 4)])
        .when(confirm('000000'))
        .then([rejected(CODE_A, 5)]);
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), ...wrongCodes(CODE_A, 5)])
        .when(confirm('123456'))
        .thenThrows(ValidationError, /wrong, expired or already used/);
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), ...wrongCodes(CODE_A, 5)])
        .when(confirm('000000'))
        .thenThrows(ValidationError, /request a new one/);
    });

    it('refuses a code sent to a phone number the profile no longer has, without counting it, right or wrong', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A)])
        .when(confirm('123456', at, otherPhone))
        .thenThrows(ValidationError, /another phone number than the profile has now/);
      spec(phoneVerificationDecider)
        .given([issued(CODE_A)])
        .when(confirm('000000', at, otherPhone))
        .thenThrows(ValidationError, /another phone number/);
    });

    it('refuses a code when the profile has no phone number now', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A)])
        .when(confirm('123456', at, null))
        .thenThrows(ValidationError, /another phone number/);
    });

    it('accepts only the latest code: a new code replaces the previous one, with a fresh count of wrong codes', () => {
      const given = [issued(CODE_A), ...wrongCodes(CODE_A, 4), issued(CODE_B, minutes(1))];
      spec(phoneVerificationDecider)
        .given(given)
        .when(confirm('000000', minutes(2)))
        .then([rejected(CODE_B, 1, minutes(2))]);
      spec(phoneVerificationDecider)
        .given(given)
        .when(confirm('123456', minutes(2)))
        .then([verified(CODE_B, minutes(2))]);
    });

    it('lets a new code replace one voided by 5 wrong codes', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), ...wrongCodes(CODE_A, 5), issued(CODE_B, minutes(1))])
        .when(confirm('123456', minutes(2)))
        .then([verified(CODE_B, minutes(2))]);
    });

    it('checks the code presented against the current code id', () => {
      const onlyCodeB = (codeId: string, code: string) => codeId === CODE_B && code === '123456';
      const command = (): PhoneVerificationCommand => ({
        ...base,
        type: 'ConfirmCode',
        code: '123456',
        codeMatches: onlyCodeB,
        currentPhone: phone,
        at: minutes(2),
      });
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), issued(CODE_B, minutes(1))])
        .when(command())
        .then([verified(CODE_B, minutes(2))]);
      spec(phoneVerificationDecider)
        .given([issued(CODE_B), issued(CODE_A, minutes(1))])
        .when(command())
        .then([rejected(CODE_A, 1, minutes(2))]);
    });

    it('confirms a new code of a phone number that is verified already (the verification is recorded again)', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), verified(CODE_A), issued(CODE_B, minutes(5))])
        .when(confirm('123456', minutes(6)))
        .then([verified(CODE_B, minutes(6))]);
    });

    it('leaves the current code usable when the back office imports a verified phone number', () => {
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), verified(null, minutes(1))])
        .when(confirm('123456', minutes(2)))
        .then([verified(CODE_A, minutes(2))]);
    });
  });

  describe('ImportVerifiedPhone', () => {
    it('records a verified phone number with no code', () => {
      spec(phoneVerificationDecider)
        .given([])
        .when(importPhone())
        .then([verified(null)]);
    });

    it('appends nothing when the number is the verified one already, by import or by code', () => {
      spec(phoneVerificationDecider)
        .given([verified(null)])
        .when(importPhone(phone, minutes(1)))
        .thenNothingHappened();
      spec(phoneVerificationDecider)
        .given([issued(CODE_A), verified(CODE_A)])
        .when(importPhone(phone, minutes(1)))
        .thenNothingHappened();
    });

    it('records another number as the verified one', () => {
      spec(phoneVerificationDecider)
        .given([verified(null)])
        .when(importPhone(otherPhone, minutes(1)))
        .then([verified(null, minutes(1), otherPhone)]);
    });

    it('records a number again when another was verified in between', () => {
      spec(phoneVerificationDecider)
        .given([verified(null), verified(null, minutes(1), otherPhone)])
        .when(importPhone(phone, minutes(2)))
        .then([verified(null, minutes(2))]);
    });
  });
});
