import { termsReadModels } from '../../projections/terms/index.ts';
import type { TermsEvent } from '../../commands/terms/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
const accepted = (memberId: number, auctionId: number, minute = 0, tenant = 'demo'): TermsEvent => ({
  type: 'AuctionTermsAccepted',
  data: { tenant, memberId, auctionId, at: at(minute) },
});

describe('terms projection', () => {
  it("records a member's acceptance of an auction's terms, one document per member and auction", async () => {
    await givenEvents(accepted(1, 2), accepted(1, 3, 1), accepted(4, 2, 2))
      .whenProjected(termsReadModels)
      .thenDocuments('terms_acceptances', 'demo', [
        { _id: '1:2', MemberId: 1, AuctionId: 2, AcceptedAt: at(0) },
        { _id: '1:3', MemberId: 1, AuctionId: 3, AcceptedAt: at(1) },
        { _id: '4:2', MemberId: 4, AuctionId: 2, AcceptedAt: at(2) },
      ]);
  });

  it('keeps the time of the first acceptance when the terms are accepted again', async () => {
    await givenEvents(accepted(1, 2, 0), accepted(1, 2, 30))
      .whenProjected(termsReadModels)
      .thenDocuments('terms_acceptances', 'demo', [{ _id: '1:2', MemberId: 1, AuctionId: 2, AcceptedAt: at(0) }]);
  });

  it("keeps each tenant's acceptances apart", async () => {
    await givenEvents(accepted(1, 2, 0), accepted(1, 2, 5, 'demo2'))
      .whenProjected(termsReadModels)
      .thenDocuments('terms_acceptances', 'demo', [{ _id: '1:2', MemberId: 1, AuctionId: 2, AcceptedAt: at(0) }])
      .thenDocuments('terms_acceptances', 'demo2', [{ _id: '1:2', MemberId: 1, AuctionId: 2, AcceptedAt: at(5) }]);
  });
});
