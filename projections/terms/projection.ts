import type { DocumentProjection } from '../../src/projector/projection.ts';
import { asAppEvent } from '../../src/events/registry.ts';
import type { Doc } from '../../src/ports/read-models.ts';

export interface TermsAcceptanceDoc extends Doc {
  MemberId: number;
  AuctionId: number;
  AcceptedAt: string;
}

export const termsId = (memberId: number, auctionId: number) => `${memberId}:${auctionId}`;

export const termsProjection: DocumentProjection = {
  kind: 'documents',
  name: 'terms',
  collections: [{ name: 'terms_acceptances', indexes: [{ fields: ['MemberId'] }] }],
  handles: ['AuctionTermsAccepted'],
  async apply(recorded, uow) {
    const event = asAppEvent(recorded);
    if (event.type !== 'AuctionTermsAccepted') return;
    const d = event.data;
    await uow.update<TermsAcceptanceDoc>('terms_acceptances', d.tenant, termsId(d.memberId, d.auctionId), (doc) => ({
      MemberId: d.memberId,
      AuctionId: d.auctionId,
      AcceptedAt: doc?.AcceptedAt ?? d.at,
    }));
  },
};
