import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

export type MemberBidStatus = 'leading' | 'outbid' | 'won' | 'lost';

/** A member's standing on a lot they bid on (`GET /v1/me/bids`): one document per member and lot. */
export interface MemberBidDoc extends Doc {
  MemberId: number;
  LotId: number;
  AuctionId: number;
  MaxAmount: number;
  Status: MemberBidStatus;
  LastBidAt: string;
}

/** A lot's bidders as the projection ranks them (the leader: the highest maximum, equal ones by log order). */
export interface LotBiddersDoc extends Doc {
  LotId: number;
  /** By member id: their maximum and its place among the lot's maximum bids. */
  Maxima: Record<string, { Max: number; Seq: number }>;
  Seq: number;
  Leader: number | null;
}

export const MEMBER_BIDS = 'member_bids';
export const LOT_BIDDERS = 'lot_bidders';
export const memberBidId = (memberId: number, lotId: number) => `${memberId}:${lotId}`;
export const memberBids = (db: TenantScope) => db.collection<MemberBidDoc>(MEMBER_BIDS);
