import { termsDecider } from '../../commands/terms/decide.ts';
import { contactDecider } from '../../commands/contact/decide.ts';
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

describe('contact decider', () => {
  const message = {
    tenant: 'demo',
    messageId: '8a5f7c1e-2d44-4b0e-9a5e-0c7c1b2d3e4f',
    name: 'Ann',
    email: 'ann@example.com',
    subject: 'Shipping',
    message: 'Do you ship to Norway?',
    lotId: 12,
    memberId: null,
    at,
  };

  it('submits a message once', () => {
    spec(contactDecider)
      .given([])
      .when(message)
      .then([{ type: 'ContactMessageSubmitted', data: message }]);
  });

  it('appends nothing when the same message id was already submitted', () => {
    spec(contactDecider)
      .given([{ type: 'ContactMessageSubmitted', data: message }])
      .when(message)
      .thenNothingHappened();
  });
});
