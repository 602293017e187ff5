/**
 * The profile decider (replacement, VAT checks) and the phone verification decider: given events, when a
 * command, then events or an error.
 */
import { expect } from 'chai';
import { profileDecider } from '../../commands/profile/decide.ts';
import { isVatFree } from '../../commands/profile/rules.ts';
import { CODE_TTL_MS, phoneVerificationDecider } from '../../commands/phone-verification/decide.ts';
import { TooManyRequestsError, ValidationError } from '../../src/errors.ts';
import { emptyProfile, type ProfileEvent, type ProfileFields } from '../../commands/profile/events.ts';
import type { PhoneVerificationEvent } from '../../commands/phone-verification/events.ts';
import type { VatCheckResult } from '../../src/ports/vat.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const base = { tenant: 'demo', memberId: 1, at };
const CHECK_1 = '11111111-1111-4111-8111-111111111111';
const CHECK_2 = '22222222-2222-4222-8222-222222222222';
const DE = 'DE136695976';
const NL = 'NL004495445B01';

const profile = (overrides: Partial<ProfileFields> = {}): ProfileFields => ({
  ...emptyProfile('en'),
  firstName: 'Anna',
  lastName: 'Berg',
  phone: '+31612345678',
  ...overrides,
});
const replaced = (p: ProfileFields): ProfileEvent => ({ type: 'MemberProfileReplaced', data: { ...base, profile: p } });
const requested = (checkId: string, vatNumber: string, companyName: string | null = 'Berg GmbH'): ProfileEvent => ({
  type: 'MemberVatCheckRequested',
  data: { ...base, checkId, vatNumber, companyName },
});
const result = (vatNumber: string, valid: boolean, country: string | null): VatCheckResult => ({
  vatNumber,
  valid,
  country,
  source: 'format',
});
const record = (checkId: string, r: VatCheckResult, homeCountry: string | null = 'NL') =>
  ({ type: 'RecordVatCheck', ...base, checkId, result: r, homeCountry }) as const;
const replace = (p: ProfileFields, checkId = CHECK_1) => ({ type: 'ReplaceProfile', ...base, profile: p, checkId }) as const;

describe('profile decider', () => {
  describe('ReplaceProfile', () => {
    it('stores the first replacement, with no VAT check when no VAT number is given', () => {
      spec(profileDecider)
        .given([])
        .when(replace(profile()))
        .then([replaced(profile())]);
    });

    it('appends nothing when the replacement equals the stored profile (extraData compared by its entries)', () => {
      const p = profile({ extraData: { a: 1, b: 'x' } });
      spec(profileDecider)
        .given([replaced(p)])
        .when(replace({ ...p, extraData: { b: 'x', a: 1 } }))
        .thenNothingHappened();
    });

    it('stores a changed field, and starts no VAT check when neither the company name nor the VAT number changed', () => {
      const p = profile({ companyName: 'Berg GmbH', vatNumber: DE });
      spec(profileDecider)
        .given([replaced(p), requested(CHECK_1, DE)])
        .when(replace({ ...p, city: 'Berlin' }, CHECK_2))
        .then([replaced({ ...p, city: 'Berlin' })]);
    });

    it('starts a VAT check when a VAT number is given for the first time', () => {
      const p = profile({ companyName: 'Berg GmbH', vatNumber: DE });
      spec(profileDecider)
        .given([replaced(profile())])
        .when(replace(p))
        .then([replaced(p), requested(CHECK_1, DE)]);
    });

    it('starts a VAT check when only the company name changed', () => {
      const p = profile({ companyName: 'Berg GmbH', vatNumber: DE });
      spec(profileDecider)
        .given([replaced(p), requested(CHECK_1, DE)])
        .when(replace({ ...p, companyName: 'Berg & Söhne GmbH' }, CHECK_2))
        .then([replaced({ ...p, companyName: 'Berg & Söhne GmbH' }), requested(CHECK_2, DE, 'Berg & Söhne GmbH')]);
    });

    it('starts no VAT check when the VAT number is removed (no number: not VAT-free)', () => {
      const p = profile({ companyName: 'Berg GmbH', vatNumber: DE });
      spec(profileDecider)
        .given([replaced(p), requested(CHECK_1, DE)])
        .when(replace({ ...p, vatNumber: null }, CHECK_2))
        .then([replaced({ ...p, vatNumber: null })]);
    });
  });

  describe('RecordVatCheck', () => {
    const p = profile({ companyName: 'Berg GmbH', vatNumber: DE });

    it('records a valid number of another EU country as VAT-free (reverse charge)', () => {
      spec(profileDecider)
        .given([replaced(p), requested(CHECK_1, DE)])
        .when(record(CHECK_1, result(DE, true, 'DE')))
        .then([
          {
            type: 'MemberVatNumberChecked',
            data: {
              ...base,
              checkId: CHECK_1,
              vatNumber: DE,
              valid: true,
              country: 'DE',
              source: 'format',
              homeCountry: 'NL',
              vatFree: true,
            },
          },
        ]);
    });

    it("records a valid number of the house's own country as not VAT-free", () => {
      const nl = profile({ companyName: 'Berg BV', vatNumber: NL });
      spec(profileDecider)
        .given([replaced(nl), requested(CHECK_1, NL)])
        .when(record(CHECK_1, result(NL, true, 'NL')))
        .then([
          {
            type: 'MemberVatNumberChecked',
            data: {
              ...base,
              checkId: CHECK_1,
              vatNumber: NL,
              valid: true,
              country: 'NL',
              source: 'format',
              homeCountry: 'NL',
              vatFree: false,
            },
          },
        ]);
    });

    it('records an invalid number as not VAT-free', () => {
      spec(profileDecider)
        .given([replaced(p), requested(CHECK_1, DE)])
        .when(record(CHECK_1, result(DE, false, 'DE')))
        .then([
          {
            type: 'MemberVatNumberChecked',
            data: {
              ...base,
              checkId: CHECK_1,
              vatNumber: DE,
              valid: false,
              country: 'DE',
              source: 'format',
              homeCountry: 'NL',
              vatFree: false,
            },
          },
        ]);
    });

    it('appends nothing for a check recorded already (a retried or duplicated job)', () => {
      spec(profileDecider)
        .given([
          replaced(p),
          requested(CHECK_1, DE),
          {
            type: 'MemberVatNumberChecked',
            data: {
              ...base,
              checkId: CHECK_1,
              vatNumber: DE,
              valid: true,
              country: 'DE',
              source: 'format',
              homeCountry: 'NL',
              vatFree: true,
            },
          },
        ])
        .when(record(CHECK_1, result(DE, true, 'DE')))
        .thenNothingHappened();
    });

    it('drops the stale result of a number the profile no longer has', () => {
      const nl = profile({ companyName: 'Berg BV', vatNumber: NL });
      spec(profileDecider)
        .given([replaced(p), requested(CHECK_1, DE), replaced(nl), requested(CHECK_2, NL)])
        .when(record(CHECK_1, result(DE, true, 'DE')))
        .thenNothingHappened();
    });

    it('drops the result of an older check of a number that was replaced and given again (a newer check decides)', () => {
      const nl = profile({ companyName: 'Berg BV', vatNumber: NL });
      spec(profileDecider)
        .given([replaced(p), requested(CHECK_1, DE), replaced(nl), replaced(p), requested(CHECK_2, DE)])
        .when(record(CHECK_1, result(DE, true, 'DE')))
        .thenNothingHappened();
    });

    it('drops a result that arrives after the number was removed', () => {
      spec(profileDecider)
        .given([replaced(p), requested(CHECK_1, DE), replaced({ ...p, vatNumber: null })])
        .when(record(CHECK_1, result(DE, true, 'DE')))
        .thenNothingHappened();
    });

    it('appends nothing for a check that was never requested', () => {
      spec(profileDecider)
        .given([replaced(p)])
        .when(record(CHECK_2, result(DE, true, 'DE')))
        .thenNothingHappened();
    });
  });

  describe('the VAT decision', () => {
    it("is VAT-free only for a valid number of an EU country other than the house's own", () => {
      expect(isVatFree({ valid: true, country: 'DE' }, 'NL')).to.equal(true);
      expect(isVatFree({ valid: true, country: 'SE' }, 'NL')).to.equal(true);
      expect(isVatFree({ valid: true, country: 'SE' }, 'SE')).to.equal(false);
      expect(isVatFree({ valid: true, country: 'NL' }, 'NL')).to.equal(false);
      expect(isVatFree({ valid: true, country: 'GR' }, 'NL')).to.equal(true);
      expect(isVatFree({ valid: false, country: 'DE' }, 'NL')).to.equal(false);
      // Not in the EU: Switzerland, the United Kingdom, Norway; and an unknown country.
      for (const country of ['CH', 'GB', 'NO', 'XI', null])
        expect(isVatFree({ valid: true, country }, 'NL'), String(country)).to.equal(false);
      // A house with no country configured charges VAT to everyone.
      expect(isVatFree({ valid: true, country: 'DE' }, null)).to.equal(false);
    });
  });
});

describe('phone verification decider', () => {
  const CODE_A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
  const CODE_B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
  const phone = '+31612345678';
  const minutes = (n: number) => new Date(Date.parse(at) + n * 60_000).toISOString();
  const issued = (codeId: string, when = at, to = phone): PhoneVerificationEvent => ({
    type: 'PhoneVerificationCodeIssued',
    data: { tenant: 'demo', memberId: 1, codeId, phone: to, expiresAt: new Date(Date.parse(when) + CODE_TTL_MS).toISOString(), at: when },
  });
  const rejected = (codeId: string, failedAttempts: number, when = at): PhoneVerificationEvent => ({
    type: 'PhoneVerificationCodeRejected',
    data: { tenant: 'demo', memberId: 1, codeId, failedAttempts, at: when },
  });
  const verified = (codeId: string | null, when = at, to = phone): PhoneVerificationEvent => ({
    type: 'MemberPhoneVerified',
    data: { tenant: 'demo', memberId: 1, codeId, phone: to, at: when },
  });
  /** Codes as the derivation would give them: code `123456` belongs to every code id here. */
  const codeMatches = (_codeId: string, code: string) => code === '123456';
  const confirm = (code: string, when = at, currentPhone: string | null = phone) =>
    ({ type: 'ConfirmCode', tenant: 'demo', memberId: 1, code, codeMatches, currentPhone, at: when }) as const;
  const issue = (codeId: string, when = at) => ({ type: 'IssueCode', tenant: 'demo', memberId: 1, codeId, phone, at: when }) as const;

  it('issues a code valid for 10 minutes', () => {
    spec(phoneVerificationDecider)
      .given([])
      .when(issue(CODE_A))
      .then([issued(CODE_A)]);
  });

  it('issues at most 3 codes an hour, then refuses with the seconds until the oldest leaves the hour', () => {
    const given = [issued(CODE_A, minutes(0)), issued(CODE_B, minutes(10)), issued(CODE_A, minutes(20))];
    spec(phoneVerificationDecider)
      .given(given)
      .when(issue(CODE_B, minutes(30)))
      .thenThrows(TooManyRequestsError);
    const state = given.reduce(phoneVerificationDecider.evolve, phoneVerificationDecider.initialState());
    let refused: unknown = null;
    try {
      phoneVerificationDecider.decide(issue(CODE_B, minutes(30)), state);
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).extra.retryAfterSeconds).to.equal(30 * 60);
    spec(phoneVerificationDecider)
      .given(given)
      .when(issue(CODE_B, minutes(60)))
      .then([issued(CODE_B, minutes(60))]);
  });

  it('verifies the phone with the right code', () => {
    spec(phoneVerificationDecider)
      .given([issued(CODE_A)])
      .when(confirm('123456', minutes(9)))
      .then([verified(CODE_A, minutes(9))]);
  });

  it('counts a wrong code, and refuses any code once 5 wrong ones voided it', () => {
    spec(phoneVerificationDecider)
      .given([issued(CODE_A)])
      .when(confirm('000000'))
      .then([rejected(CODE_A, 1)]);
    spec(phoneVerificationDecider)
      .given([issued(CODE_A), rejected(CODE_A, 1), rejected(CODE_A, 2), rejected(CODE_A, 3)])
      .when(confirm('000000'))
      .then([rejected(CODE_A, 4)]);
    spec(phoneVerificationDecider)
      .given([issued(CODE_A), rejected(CODE_A, 1), rejected(CODE_A, 2), rejected(CODE_A, 3), rejected(CODE_A, 4)])
      .when(confirm('000000'))
      .then([rejected(CODE_A, 5)]);
    spec(phoneVerificationDecider)
      .given([issued(CODE_A), rejected(CODE_A, 1), rejected(CODE_A, 2), rejected(CODE_A, 3), rejected(CODE_A, 4), rejected(CODE_A, 5)])
      .when(confirm('123456'))
      .thenThrows(ValidationError, /request a new one/);
  });

  it('refuses an expired code, a used code, and a code when none was issued', () => {
    spec(phoneVerificationDecider)
      .given([issued(CODE_A)])
      .when(confirm('123456', minutes(10)))
      .thenThrows(ValidationError);
    spec(phoneVerificationDecider)
      .given([issued(CODE_A), verified(CODE_A)])
      .when(confirm('123456'))
      .thenThrows(ValidationError);
    spec(phoneVerificationDecider).given([]).when(confirm('123456')).thenThrows(ValidationError);
  });

  it('refuses a code sent to a phone the profile no longer has, without counting it', () => {
    spec(phoneVerificationDecider)
      .given([issued(CODE_A)])
      .when(confirm('123456', at, '+31687654321'))
      .thenThrows(ValidationError, /another phone/);
    spec(phoneVerificationDecider)
      .given([issued(CODE_A)])
      .when(confirm('123456', at, null))
      .thenThrows(ValidationError);
  });

  it('accepts only the latest code: a new code replaces the previous one, with a fresh count', () => {
    const given = [issued(CODE_A), rejected(CODE_A, 4), issued(CODE_B, minutes(1))];
    spec(phoneVerificationDecider)
      .given(given)
      .when(confirm('000000', minutes(2)))
      .then([rejected(CODE_B, 1, minutes(2))]);
    spec(phoneVerificationDecider)
      .given(given)
      .when(confirm('123456', minutes(2)))
      .then([verified(CODE_B, minutes(2))]);
  });

  it('imports a verified phone once', () => {
    const command = { type: 'ImportVerifiedPhone', tenant: 'demo', memberId: 1, phone, at } as const;
    spec(phoneVerificationDecider)
      .given([])
      .when(command)
      .then([verified(null)]);
    spec(phoneVerificationDecider)
      .given([verified(null)])
      .when(command)
      .thenNothingHappened();
    spec(phoneVerificationDecider)
      .given([verified(null)])
      .when({ ...command, phone: '+31687654321' })
      .then([verified(null, at, '+31687654321')]);
  });
});
