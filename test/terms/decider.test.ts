import { termsDecider } from '../../commands/terms/decide.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';

describe('terms decider', () => {
  it("records the acceptance of an auction's terms", () => {
    spec(termsDecider)
      .given([])
      .when({ tenant: 'demo', memberId: 1, auctionId: 2, at })
      .then([{ type: 'AuctionTermsAccepted', data: { tenant: 'demo', memberId: 1, auctionId: 2, at } }]);
  });

  it('records nothing when the terms were already accepted', () => {
    spec(termsDecider)
      .given([{ type: 'AuctionTermsAccepted', data: { tenant: 'demo', memberId: 1, auctionId: 2, at } }])
      .when({ tenant: 'demo', memberId: 1, auctionId: 2, at: '2026-11-23T10:00:00.000Z' })
      .thenNothingHappened();
  });

  it("records another auction's terms separately", () => {
    spec(termsDecider)
      .given([{ type: 'AuctionTermsAccepted', data: { tenant: 'demo', memberId: 1, auctionId: 2, at } }])
      .when({ tenant: 'demo', memberId: 1, auctionId: 5, at })
      .then([{ type: 'AuctionTermsAccepted', data: { tenant: 'demo', memberId: 1, auctionId: 5, at } }]);
  });
});
