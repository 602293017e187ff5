import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

/** Bid histories: one document per accepted bid, numbered per lot in the order the log holds them. */
export const BIDS = 'bids';

export type BidType = 'online' | 'absentee' | 'floor' | 'phone';

export interface BidDoc extends Doc {
  LotId: number;
  AuctionId: number;
  LotNumber: number;
  /** 1 for the lot's first bid. */
  Seq: number;
  Amount: number;
  Currency: string;
  PlacedAt: string;
  BidType: BidType;
  /** The lot's end time (moved by an early close), RFC 3339 with milliseconds: bids of open lots have it in the future. */
  LotEndTime: string;
  /** The pseudonym of the bidder the bid is (1 for the lot's first bidder); null where the house's own engine took it. */
  Pseudonym?: number | null;
}

export const bids = (db: TenantScope) => db.collection<BidDoc>(BIDS);
export const bidId = (lotId: number, seq: number) => `${lotId}:${seq}`;
