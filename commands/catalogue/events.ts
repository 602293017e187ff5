import { z } from 'zod';
import { holdsLines } from '../../src/text/holds-lines.ts';
import { CHANNELS, ruleName } from '../costs/events.ts';
import { defineEvent, defineEvents, isoDateTime, languageCode, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

/** Texts of one language. */
const texts = z.record(languageCode, z.object({ title: z.string().max(500), description: holdsLines(z.string().max(20000)) }));

export const AuctionCatalogued = defineEvent({
  type: 'AuctionCatalogued',
  version: 1,
  stream: 'auction-{tenant}-{auctionId}',
  description:
    'Catalogue intake: an auction was published or its catalogue data changed (the whole record, every language). `registrationApproval` (added compatibly): `manual` when the house approves registrations by hand, else they are approved at once. `bidding` (added compatibly): `timed` when this service takes the bids, else `external` (bids come through intake). ' +
    "`premiumSchedule` and `channelFees` (added compatibly, COSTS.md): the house's premium schedule for the auction's lots, and the codes of the house's channel fees that apply to it (replacing the house's whole list for it; `[]`: none).",
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
    premiumSchedule: ruleName.optional(),
    channelFees: z.array(z.enum(CHANNELS)).max(CHANNELS.length).optional(),
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

/** The catalogue's auctions and categories (a lot's events are the lot stream's: commands/lots/events.ts). */
export const catalogueEvents = defineEvents([AuctionCatalogued, LiveStatusChanged, CategoryCatalogued]);

/** The streams of the catalogue's aggregates. */
export const categoryStreamId = (tenant: string, categoryId: number) => `category-${tenant}-${categoryId}`;
export const auctionStreamId = (tenant: string, auctionId: number) => `auction-${tenant}-${auctionId}`;

export type CatalogueEvent = EventsOf<typeof catalogueEvents>;
