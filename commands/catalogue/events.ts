import { z } from 'zod';
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

/** Texts of one language. */
const texts = z.record(languageCode, z.object({ title: z.string().max(500), description: z.string().max(20000) }));

export const AuctionCatalogued = defineEvent({
  type: 'AuctionCatalogued',
  version: 1,
  stream: 'auction-{tenant}-{auctionId}',
  description:
    'Catalogue intake: an auction was published or its catalogue data changed (the whole record, every language). `registrationApproval` (added compatibly): `manual` when the house approves registrations by hand, else they are approved at once. `bidding` (added compatibly): `timed` when this service takes the bids, else `external` (bids come through intake).',
  schema: z.object({
    tenant: tenantId,
    auctionId: positiveId,
    auctionType: z.number().int().min(0).max(1000),
    texts,
    startTime: isoDateTime,
    endTime: isoDateTime,
    currency: z.string().regex(/^[A-Z]{3}$/),
    requiresTermsAcceptance: z.boolean(),
    registrationApproval: z.enum(['automatic', 'manual']).optional(),
    bidding: z.enum(['external', 'timed']).optional(),
  }),
});

export const LiveStatusChanged = defineEvent({
  type: 'LiveStatusChanged',
  version: 1,
  stream: 'auction-{tenant}-{auctionId}',
  description:
    'Live-auction operation: a live sale of the auction was scheduled, started, moved to another lot, or stopped. `startsAt` (optional, added compatibly) is when the live sale is scheduled to start.',
  schema: z.object({
    tenant: tenantId,
    auctionId: positiveId,
    isLive: z.boolean(),
    currentLotId: positiveId.nullable(),
    at: isoDateTime,
    startsAt: isoDateTime.nullable().optional(),
  }),
});

export const CategoryCatalogued = defineEvent({
  type: 'CategoryCatalogued',
  version: 1,
  stream: 'category-{tenant}-{categoryId}',
  description: "Catalogue intake: a category of the tenant's tree was published or changed.",
  schema: z.object({
    tenant: tenantId,
    categoryId: positiveId,
    parentId: positiveId.nullable(),
    names: z.record(languageCode, z.string().min(1).max(200)),
    sortOrder: z.number().int().min(-2147483648).max(2147483647),
  }),
});

export const LotCatalogued = defineEvent({
  type: 'LotCatalogued',
  version: 1,
  stream: 'lot-{tenant}-{lotId}',
  description:
    'Catalogue intake: a lot was published or its catalogue data changed (the whole record, every language). Money in minor units. `reservePrice` (added compatibly, private): the lowest hammer price of a timed lot, never shown.',
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
  }),
  private: ['reservePrice'],
});

export const LotClosed = defineEvent({
  type: 'LotClosed',
  version: 1,
  stream: 'lot-{tenant}-{lotId}',
  description:
    "Bidding engine: bidding on the lot ended (hammer or withdrawal) before or at its end time. `auctionId` (added compatibly): the lot's auction, when timed bidding closed it.",
  schema: z.object({ tenant: tenantId, lotId: positiveId, auctionId: positiveId.optional(), closedAt: isoDateTime }),
});

export const BidPlaced = defineEvent({
  type: 'BidPlaced',
  version: 1,
  stream: 'lot-{tenant}-{lotId}',
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

export const catalogueEvents = defineEvents([
  AuctionCatalogued,
  LiveStatusChanged,
  CategoryCatalogued,
  LotCatalogued,
  LotClosed,
  BidPlaced,
]);

/** The streams of the catalogue's aggregates. */
export const categoryStreamId = (tenant: string, categoryId: number) => `category-${tenant}-${categoryId}`;
export const auctionStreamId = (tenant: string, auctionId: number) => `auction-${tenant}-${auctionId}`;
export const lotStreamId = (tenant: string, lotId: number) => `lot-${tenant}-${lotId}`;

export type CatalogueEvent = EventsOf<typeof catalogueEvents>;
