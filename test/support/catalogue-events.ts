import type { CatalogueEvent as AuctionOrCategoryEvent } from '../../commands/catalogue/events.ts';
import type { CatalogueLotEvent } from '../../commands/lots/events.ts';

/**
 * Catalogue events as the projection specs give them (test/projections/): a lot, an auction and a category
 * with plain defaults, each overridable. Times are RFC 3339 without milliseconds, as the intake writes them.
 */

/** The catalogue's events: auctions and categories, and a lot's catalogue facts. */
export type CatalogueEvent = AuctionOrCategoryEvent | CatalogueLotEvent;

type Data<T extends CatalogueEvent['type']> = Extract<CatalogueEvent, { type: T }>['data'];

export const LOT_END = '2026-11-30T18:00:00Z';

export const lotCatalogued = (lotId: number, data: Partial<Data<'LotCatalogued'>> = {}): CatalogueEvent => ({
  type: 'LotCatalogued',
  data: {
    tenant: 'demo',
    lotId,
    auctionId: 1,
    lotNumber: lotId,
    categoryId: 3,
    texts: { en: { title: 'Oak chair', description: 'A chair of solid oak' } },
    attributes: [],
    images: [],
    hotLot: false,
    vatFree: false,
    currency: 'EUR',
    startingPrice: 1000,
    estimateLow: null,
    estimateHigh: null,
    endTime: LOT_END,
    combiId: null,
    ownerId: null,
    ...data,
  },
});

export const lotClosed = (lotId: number, closedAt: string, tenant = 'demo'): CatalogueEvent => ({
  type: 'LotClosed',
  data: { tenant, lotId, closedAt },
});

export const bidPlaced = (lotId: number, amount: number, placedAt: string, data: Partial<Data<'BidPlaced'>> = {}): CatalogueEvent => ({
  type: 'BidPlaced',
  data: { tenant: 'demo', lotId, bidId: `bid-${lotId}-${amount}`, amount, bidType: 'online', placedAt, ...data },
});

export const auctionCatalogued = (auctionId: number, data: Partial<Data<'AuctionCatalogued'>> = {}): CatalogueEvent => ({
  type: 'AuctionCatalogued',
  data: {
    tenant: 'demo',
    auctionId,
    auctionType: 1,
    texts: { en: { title: 'Autumn sale', description: 'Furniture and design' } },
    startTime: '2026-11-20T10:00:00Z',
    endTime: LOT_END,
    currency: 'EUR',
    requiresTermsAcceptance: false,
    ...data,
  },
});

export const categoryCatalogued = (categoryId: number, data: Partial<Data<'CategoryCatalogued'>> = {}): CatalogueEvent => ({
  type: 'CategoryCatalogued',
  data: { tenant: 'demo', categoryId, parentId: null, names: { en: 'Furniture' }, sortOrder: 1, ...data },
});

export const liveStatusChanged = (auctionId: number, data: Partial<Data<'LiveStatusChanged'>> = {}): CatalogueEvent => ({
  type: 'LiveStatusChanged',
  data: { tenant: 'demo', auctionId, isLive: true, currentLotId: null, at: '2026-11-30T17:00:00Z', ...data },
});
