import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { termsEvents } from '../../commands/terms/events.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

export interface TermsAcceptanceDoc extends Doc {
  MemberId: number;
  AuctionId: number;
  AcceptedAt: string;
}

export const termsId = (memberId: number, auctionId: number) => `${memberId}:${auctionId}`;

export const TERMS_ACCEPTANCES = 'terms_acceptances';
export const termsAcceptances = (db: TenantScope) => db.collection<TermsAcceptanceDoc>(TERMS_ACCEPTANCES);

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
