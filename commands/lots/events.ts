// A lot's stream: what catalogue intake records of a lot and what timed bidding decides on it, owned here so the
// catalogue, timed bidding and the projections find it without reading each other.
import { z } from 'zod';
import { holdsLines } from '../../src/text/holds-lines.ts';
import {
  defineEvent,
  defineEvents,
  isoDateTime,
  languageCode,
  money,
  positiveId,
  tenantId,
  type EventsOf,
} from '../../src/events/define.ts';
import { ruleName, VAT_SCHEMES } from '../costs/events.ts';

const stream = 'lot-{tenant}-{lotId}';

/** Texts of one language. */
const texts = z.record(languageCode, z.object({ title: z.string().max(500), description: holdsLines(z.string().max(20000)) }));

export const LotCatalogued = defineEvent({
  type: 'LotCatalogued',
  version: 1,
  stream,
  description:
    'Catalogue intake: a lot was published or its catalogue data changed (the whole record, every language). Money in minor units. `reservePrice` (added compatibly, private): the lowest hammer price of a timed lot, never shown. ' +
    "Its costs (added compatibly, COSTS.md): `vatScheme` (absent: `margin`, or `zero` when `vatFree`), `import` (`temporary-admission`: import VAT at the `importClass`'s rate), `resaleRight` (the artist's resale right applies), `shippingClass` and `premiumSchedule` (names of the house's cost rules).",
  schema: z.object({
    tenant: tenantId,
    lotId: positiveId,
    auctionId: positiveId,
    lotNumber: z.number().int().min(0).max(2147483647),
    categoryId: positiveId.nullable(),
    texts,
    attributes: z
      .array(
        z.object({
          name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/),
          labels: z.record(languageCode, z.string().max(200)),
          values: z.record(languageCode, z.string().max(1000)),
        }),
      )
      .max(100),
    images: z.array(z.string().max(2000)).max(100),
    hotLot: z.boolean(),
    vatFree: z.boolean(),
    currency: z.string().regex(/^[A-Z]{3}$/),
    startingPrice: money,
    estimateLow: money.nullable(),
    estimateHigh: money.nullable(),
    endTime: isoDateTime,
    combiId: positiveId.nullable(),
    ownerId: positiveId.nullable(),
    reservePrice: money.nullable().optional(),
    vatScheme: z.enum(VAT_SCHEMES).optional(),
    import: z.enum(['none', 'temporary-admission']).optional(),
    importClass: z.enum(['art', 'other']).optional(),
    resaleRight: z.boolean().optional(),
    shippingClass: ruleName.optional(),
    premiumSchedule: ruleName.optional(),
  }),
  private: ['reservePrice'],
});

export const LotClosed = defineEvent({
  type: 'LotClosed',
  version: 1,
  stream,
  description:
    "Bidding engine: bidding on the lot ended (hammer or withdrawal) before or at its end time. `auctionId` (added compatibly): the lot's auction, when timed bidding closed it.",
  schema: z.object({ tenant: tenantId, lotId: positiveId, auctionId: positiveId.optional(), closedAt: isoDateTime }),
});

export const BidPlaced = defineEvent({
  type: 'BidPlaced',
  version: 1,
  stream,
  description:
    "Bidding engine: a bid was accepted on a lot. Carries no bidder identity on this public log. `auctionId` (added compatibly): the lot's auction, on timed bidding's bids.",
  schema: z.object({
    tenant: tenantId,
    lotId: positiveId,
    auctionId: positiveId.optional(),
    bidId: z.string().min(1).max(100),
    amount: money,
    bidType: z.enum(['online', 'absentee', 'floor', 'phone']),
    placedAt: isoDateTime,
  }),
});

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

/**
 * How MaxBidPlaced's maxima rank on a lot, the one rule the decider and the read models share: the higher amount
 * leads, and between equal amounts the earlier (its place among the lot's MaxBidPlaced events, `seq`).
 */
export const outranks = (a: { amount: number; seq: number }, b: { amount: number; seq: number }) =>
  a.amount > b.amount || (a.amount === b.amount && a.seq < b.seq);

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

/** The catalogue's facts of a lot: published, closed, a public bid (intake records them; timed bidding decides the last two too). */
export const catalogueLotEvents = defineEvents([LotCatalogued, LotClosed, BidPlaced]);
export type CatalogueLotEvent = EventsOf<typeof catalogueLotEvents>;

/** What timed bidding adds to a lot's stream. */
export const timedBiddingEvents = defineEvents([MaxBidPlaced, LotEndTimeExtended, LotSettled]);
export type TimedBiddingEvent = EventsOf<typeof timedBiddingEvents>;

/** Everything on a lot's stream (registered by commands/lots/index.ts), as the lot's deciders read it. */
export const lotEvents = defineEvents([LotCatalogued, LotClosed, BidPlaced, MaxBidPlaced, LotEndTimeExtended, LotSettled]);
export type LotEvent = EventsOf<typeof lotEvents>;

export const lotStreamId = (tenant: string, lotId: number) => `lot-${tenant}-${lotId}`;
