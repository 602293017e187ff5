import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

export interface TermsAcceptanceDoc extends Doc {
  MemberId: number;
  AuctionId: number;
  AcceptedAt: string;
}

export const termsId = (memberId: number, auctionId: number) => `${memberId}:${auctionId}`;

export const TERMS_ACCEPTANCES = 'terms_acceptances';
export const termsAcceptances = (db: TenantScope) => db.collection<TermsAcceptanceDoc>(TERMS_ACCEPTANCES);
