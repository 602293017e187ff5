import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { termsEvents } from '../../commands/terms/events.ts';
import { type TermsAcceptanceDoc, termsId, TERMS_ACCEPTANCES } from './collections.ts';

export const termsProjection = defineDocumentProjection({
  name: 'terms',
  events: [termsEvents],
  collections: [{ name: TERMS_ACCEPTANCES, indexes: [{ fields: ['MemberId'] }] }],
  async apply(event, uow) {
    const d = event.data;
    await uow.update<TermsAcceptanceDoc>(TERMS_ACCEPTANCES, d.tenant, termsId(d.memberId, d.auctionId), (doc) => ({
      MemberId: d.memberId,
      AuctionId: d.auctionId,
      AcceptedAt: doc?.AcceptedAt ?? d.at,
    }));
  },
});
