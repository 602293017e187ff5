/**
 * The profile decider (replacement, VAT checks): given events, when a command, then events or an error.
 */
import { expect } from 'chai';
import { profileDecider } from '../../commands/profile/decide.ts';
import { isVatFree } from '../../commands/profile/rules.ts';
import { emptyProfile, type ProfileEvent, type ProfileFields } from '../../commands/profile/events.ts';
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
