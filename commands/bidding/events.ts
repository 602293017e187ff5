import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, money, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';
import { BidPlaced, LotCatalogued, LotClosed } from '../catalogue/events.ts';

const stream = 'lot-{tenant}-{lotId}';

export const MaxBidPlaced = defineEvent({
  type: 'MaxBidPlaced',
  version: 1,
  stream,
  description:
    "Timed bidding: a bidder placed or raised their maximum bid on a lot (who and how much are private: the lot's public bids are its BidPlaced events).",
  schema: z.object({
    tenant: tenantId,
    lotId: positiveId,
    auctionId: positiveId,
    bidId: z.string().uuid(),
    memberId: positiveId,
    maxAmount: money,
    /** The bidder who led before this bid and does not now (null: the lead did not change hands). */
    outbidMemberId: positiveId.nullable(),
    at: isoDateTime,
  }),
  private: ['memberId', 'maxAmount', 'outbidMemberId'],
});

export const LotEndTimeExtended = defineEvent({
  type: 'LotEndTimeExtended',
  version: 1,
  stream,
  description:
    "Timed bidding (soft close): a public bid in the tenant's extension window before the lot's end time moved it to the bid's time plus the window.",
  schema: z.object({ tenant: tenantId, lotId: positiveId, auctionId: positiveId.optional(), endTime: isoDateTime, at: isoDateTime }),
});

export const LotSettled = defineEvent({
  type: 'LotSettled',
  version: 1,
  stream,
  description:
    'Timed bidding: the lot closed at its end time, sold to the leader at the current bid when the reserve was met (or there was none), else unsold. Follows its LotClosed.',
  schema: z.object({
    tenant: tenantId,
    lotId: positiveId,
    auctionId: positiveId.optional(),
    sold: z.boolean(),
    hammerPrice: money.nullable(),
    winnerMemberId: positiveId.nullable(),
    at: isoDateTime,
  }),
  private: ['winnerMemberId'],
});

/** The events timed bidding adds (registered by this feature). */
export const biddingEvents = defineEvents([MaxBidPlaced, LotEndTimeExtended, LotSettled]);
export type BiddingEvent = EventsOf<typeof biddingEvents>;

/**
 * Everything on a lot's stream, as the bidding decider reads it: the catalogue's lot events (registered by the
 * catalogue) and timed bidding's own. It decides BidPlaced and LotClosed too: a public bid and a close are the
 * catalogue's facts, whoever runs the bidding.
 */
export const lotStreamEvents = defineEvents([LotCatalogued, LotClosed, BidPlaced, MaxBidPlaced, LotEndTimeExtended, LotSettled]);
export type LotStreamEvent = EventsOf<typeof lotStreamEvents>;

export { lotStreamId } from '../catalogue/events.ts';
