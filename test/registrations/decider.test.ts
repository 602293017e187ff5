import { expect } from 'chai';
import { registrationDecider, type RegistrationCommand } from '../../commands/registrations/decide.ts';
import { registrationsStreamId, type RegistrationsEvent } from '../../commands/registrations/events.ts';
import { lotRegistrationReason, type LotRegistrationFacts } from '../../commands/registrations/rules.ts';
import { ConflictError, ForbiddenError } from '../../src/errors.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const base = { tenant: 'demo', memberId: 1, auctionId: 3 };
const request = (overrides: Partial<Extract<RegistrationCommand, { type: 'RequestRegistration' }>> = {}): RegistrationCommand => ({
  type: 'RequestRegistration',
  ...base,
  at,
  auctionClosed: false,
  termsRequired: false,
  termsAccepted: false,
  approval: 'automatic',
  memberConfirmed: true,
  ...overrides,
});
const decide = (status: 'approved' | 'rejected'): RegistrationCommand => ({ type: 'DecideRegistration', ...base, status, at });
const requested = (status: 'pending' | 'approved', channel: 'api' | 'intake' = 'api'): RegistrationsEvent => ({
  type: 'AuctionRegistrationRequested',
  data: { ...base, status, channel, at },
});
const approved: RegistrationsEvent = { type: 'RegistrationApproved', data: { ...base, at } };
const rejected: RegistrationsEvent = { type: 'RegistrationRejected', data: { ...base, at } };

describe('registration decider', () => {
  it('names one stream per member and auction', () => {
    expect(registrationsStreamId('demo', 1, 3)).to.equal('registration-demo-1-3');
  });

  describe('given no registration, when the bidder asks (operation 31)', () => {
    it('then a confirmed member of an automatically approved auction is approved at once', () => {
      spec(registrationDecider)
        .given([])
        .when(request())
        .then([requested('approved')]);
    });

    it('then a request for an auction the house approves by hand is pending', () => {
      spec(registrationDecider)
        .given([])
        .when(request({ approval: 'manual' }))
        .then([requested('pending')]);
    });

    it('then a member who has not confirmed their email is pending, even for an automatic auction', () => {
      spec(registrationDecider)
        .given([])
        .when(request({ memberConfirmed: false }))
        .then([requested('pending')]);
    });

    it('then a closed auction is refused with a conflict', () => {
      spec(registrationDecider)
        .given([])
        .when(request({ auctionClosed: true }))
        .thenThrows(ConflictError, /closed/);
    });

    it('then an auction requiring terms the member has not accepted is forbidden', () => {
      spec(registrationDecider)
        .given([])
        .when(request({ termsRequired: true, termsAccepted: false }))
        .thenThrows(ForbiddenError, /terms/);
    });

    it('then an auction requiring terms the member accepted is approved', () => {
      spec(registrationDecider)
        .given([])
        .when(request({ termsRequired: true, termsAccepted: true }))
        .then([requested('approved')]);
    });

    it('then the closed auction is named before the missing terms', () => {
      spec(registrationDecider)
        .given([])
        .when(request({ auctionClosed: true, termsRequired: true }))
        .thenThrows(ConflictError);
    });
  });

  describe('given a registration, when the bidder asks again', () => {
    for (const [name, history] of [
      ['pending', [requested('pending')]],
      ['approved', [requested('approved')]],
      ['rejected', [requested('pending'), rejected]],
      ['approved by the house directly', [approved]],
    ] as Array<[string, RegistrationsEvent[]]>) {
      it(`then nothing is appended (${name})`, () => {
        spec(registrationDecider).given(history).when(request()).thenNothingHappened();
      });
    }

    it('then nothing is appended even though the auction has closed or its terms are not accepted (the retry answers the status)', () => {
      spec(registrationDecider)
        .given([requested('pending')])
        .when(request({ auctionClosed: true, termsRequired: true }))
        .thenNothingHappened();
    });
  });

  describe("when the house decides (intake 'registrationDecision')", () => {
    it('then a pending registration is approved', () => {
      spec(registrationDecider)
        .given([requested('pending')])
        .when(decide('approved'))
        .then([approved]);
    });

    it('then a pending registration is rejected', () => {
      spec(registrationDecider)
        .given([requested('pending')])
        .when(decide('rejected'))
        .then([rejected]);
    });

    it('then an approval can be withdrawn, and a rejection reversed', () => {
      spec(registrationDecider)
        .given([requested('approved')])
        .when(decide('rejected'))
        .then([rejected]);
      spec(registrationDecider)
        .given([requested('pending'), rejected])
        .when(decide('approved'))
        .then([approved]);
    });

    it('then a decision equal to the current status appends nothing', () => {
      spec(registrationDecider)
        .given([requested('approved')])
        .when(decide('approved'))
        .thenNothingHappened();
      spec(registrationDecider)
        .given([requested('pending'), rejected])
        .when(decide('rejected'))
        .thenNothingHappened();
    });

    it('then a decision for a registration never requested is recorded (the house registers the member directly)', () => {
      spec(registrationDecider).given([]).when(decide('approved')).then([approved]);
      spec(registrationDecider).given([]).when(decide('rejected')).then([rejected]);
    });
  });

  describe("when the house imports a request it received (intake 'registrationRequest')", () => {
    it('then a new request is pending, marked as from intake', () => {
      spec(registrationDecider)
        .given([])
        .when({ type: 'RecordRegistrationRequest', ...base, at })
        .then([requested('pending', 'intake')]);
    });

    it('then an existing registration is left as it is', () => {
      spec(registrationDecider)
        .given([approved])
        .when({ type: 'RecordRegistrationRequest', ...base, at })
        .thenNothingHappened();
      spec(registrationDecider)
        .given([requested('pending')])
        .when({ type: 'RecordRegistrationRequest', ...base, at })
        .thenNothingHappened();
    });
  });
});

describe('lot registration reason (operation 33)', () => {
  const open: LotRegistrationFacts = {
    lotClosed: false,
    auctionOpen: true,
    termsRequired: false,
    termsAccepted: false,
    registration: 'approved',
  };

  it('may bid on an open lot of an open auction with an approved registration', () => {
    expect(lotRegistrationReason(open)).to.equal(null);
    expect(lotRegistrationReason({ ...open, termsRequired: true, termsAccepted: true })).to.equal(null);
  });

  it('names each reason', () => {
    expect(lotRegistrationReason({ ...open, lotClosed: true })).to.equal('lot-closed');
    expect(lotRegistrationReason({ ...open, auctionOpen: false })).to.equal('auction-not-open');
    expect(lotRegistrationReason({ ...open, termsRequired: true })).to.equal('terms-not-accepted');
    expect(lotRegistrationReason({ ...open, registration: 'none' })).to.equal('not-registered');
    expect(lotRegistrationReason({ ...open, registration: 'pending' })).to.equal('registration-pending');
    expect(lotRegistrationReason({ ...open, registration: 'rejected' })).to.equal('registration-rejected');
  });

  it('checks in order: lot closed, auction not open, terms, then the registration', () => {
    const worst: LotRegistrationFacts = {
      lotClosed: true,
      auctionOpen: false,
      termsRequired: true,
      termsAccepted: false,
      registration: 'none',
    };
    expect(lotRegistrationReason(worst)).to.equal('lot-closed');
    expect(lotRegistrationReason({ ...worst, lotClosed: false })).to.equal('auction-not-open');
    expect(lotRegistrationReason({ ...worst, lotClosed: false, auctionOpen: true })).to.equal('terms-not-accepted');
    expect(lotRegistrationReason({ ...worst, lotClosed: false, auctionOpen: true, termsAccepted: true })).to.equal('not-registered');
    expect(lotRegistrationReason({ ...worst, lotClosed: false, auctionOpen: true, registration: 'rejected' })).to.equal(
      'terms-not-accepted',
    );
  });
});
