import type { TenantScope } from '../../src/ports/read-models.ts';
import { AUCTION_TYPES, AUCTION_TYPES_ID, type AuctionTypesDoc, catalogueAuctions } from '../../projections/catalogue/index.ts';

export interface AuctionTypes {
  /** The type of an auction (0 when it is not catalogued). */
  typeOf(auctionId: number): number;
  /** The auctions of a type: what an `AuctionTypeId` filter of lots or bids selects. */
  idsOfType(type: number): number[];
  /** How the auction's bids are taken (API.md "Timed bidding"). */
  biddingModeOf(auctionId: number): 'external' | 'timed';
}

/**
 * The tenant's auctions by type, read from the auctions themselves at query time: a lot or bid never keeps
 * a copy of its auction's type, so a re-catalogued auction type holds everywhere at once.
 */
export async function readAuctionTypes(db: TenantScope): Promise<AuctionTypes> {
  const index = await db.collection<AuctionTypesDoc>(AUCTION_TYPES).findById(AUCTION_TYPES_ID);
  // A read model built before the index existed: the auctions themselves (until `npm run rebuild -- catalogue`).
  const types = index
    ? new Map(Object.entries(index.Types).map(([id, type]) => [Number(id), type]))
    : new Map((await catalogueAuctions(db).find({ Catalogued: true })).map((a) => [a.Id, a.AuctionType]));
  const timed = index?.Timed ?? {};
  return {
    biddingModeOf: (auctionId) => (timed[String(auctionId)] ? 'timed' : 'external'),
    typeOf: (auctionId) => types.get(auctionId) ?? 0,
    idsOfType: (type) => [...types].filter(([, t]) => t === type).map(([id]) => id),
  };
}

/** The AuctionId condition of an auction-type filter, combined with an AuctionId filter when there is one. */
export function auctionIdsOfType(types: AuctionTypes, type: number, auctionId?: number): number | { $in: number[] } {
  if (auctionId !== undefined) return types.typeOf(auctionId) === type ? auctionId : { $in: [] };
  return { $in: types.idsOfType(type) };
}
