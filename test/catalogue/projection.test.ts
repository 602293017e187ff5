import { catalogueReadModels } from '../../projections/catalogue/index.ts';
import { createdAt, givenEvents } from '../support/projection-spec.ts';
import {
  auctionCatalogued,
  bidPlaced,
  categoryCatalogued,
  liveStatusChanged,
  lotCatalogued,
  lotClosed,
} from '../support/catalogue-events.ts';

const END = '2026-11-30T18:00:00.000Z';
const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;

const auction = (fields: Record<string, unknown>) => ({
  _id: '1',
  Id: 1,
  Catalogued: true,
  AuctionType: 1,
  Texts: { en: { Title: 'Autumn sale', Description: 'Furniture and design' } },
  StartTime: '2026-11-20T10:00:00.000Z',
  EndTime: END,
  Currency: 'EUR',
  RequiresTermsAcceptance: false,
  RegistrationApproval: 'automatic',
  BiddingMode: 'external',
  IsLive: false,
  CurrentLotId: null,
  LiveStartsAt: null,
  LotCount: 0,
  CatalogueVersion: 1,
  LotsVersion: 1,
  Created: createdAt(1),
  ...fields,
});

describe('catalogue projection', () => {
  it('publishes an auction, a category and a lot, the lot counted in both and its texts folded for sorting and searching', async () => {
    const material = { name: 'Material', labels: { en: 'Material' }, values: { en: 'Öak' } };
    await givenEvents(
      auctionCatalogued(1),
      categoryCatalogued(3),
      lotCatalogued(10, { attributes: [material], images: ['https://img.example/10.jpg'], estimateLow: 800 }),
    )
      .whenProjected(catalogueReadModels)
      .thenDocuments('auctions', 'demo', [auction({ LotCount: 1, CatalogueVersion: 3, LotsVersion: 3 })])
      .thenDocuments('auction_types', 'demo', [{ _id: 'all', Types: { '1': 1 } }])
      .thenDocuments('categories', 'demo', [
        { _id: '3', Id: 3, Catalogued: true, ParentId: null, Names: { en: 'Furniture' }, SortOrder: 1, LotCount: 1 },
      ])
      .thenDocuments('lots', 'demo', [
        {
          _id: '10',
          Id: 10,
          AuctionId: 1,
          LotNumber: 10,
          CategoryId: 3,
          Texts: { en: { Title: 'Oak chair', Description: 'A chair of solid oak' } },
          SortTitle: { en: 'oak chair' },
          SearchText: { en: 'oak chair\na chair of solid oak' },
          Attributes: [{ Name: 'Material', Labels: { en: 'Material' }, Values: { en: 'Öak' } }],
          Meta: { material: { en: 'oak' } },
          Images: ['https://img.example/10.jpg'],
          HotLot: false,
          VatFree: false,
          VatScheme: 'margin',
          Currency: 'EUR',
          StartingPrice: 1000,
          EstimateLow: 800,
          EstimateHigh: null,
          EndTime: END,
          Extended: false,
          Closed: false,
          CurrentBid: null,
          BidCount: 0,
          Reserve: null,
          CombiId: null,
          OwnerId: null,
          Version: 3,
          Created: createdAt(3),
        },
      ]);
  });

  it('counts a lot catalogued before its auction and category in hidden placeholders, which their own records then fill in', async () => {
    await givenEvents(lotCatalogued(10))
      .whenProjected(catalogueReadModels)
      .thenDocumentsMatching('auctions', 'demo', [
        { _id: '1', Catalogued: false, LotCount: 1, CatalogueVersion: 1, LotsVersion: 1, Created: '' },
      ])
      .thenDocuments('categories', 'demo', [{ _id: '3', Id: 3, Catalogued: false, ParentId: null, Names: {}, SortOrder: 0, LotCount: 1 }])
      .thenDocumentsMatching('lots', 'demo', [{ _id: '10' }]);
    await givenEvents(lotCatalogued(10), auctionCatalogued(1), categoryCatalogued(3))
      .whenProjected(catalogueReadModels)
      .thenDocuments('auctions', 'demo', [auction({ LotCount: 1, CatalogueVersion: 2, LotsVersion: 2, Created: createdAt(2) })])
      .thenDocuments('auction_types', 'demo', [{ _id: 'all', Types: { '1': 1 } }])
      .thenDocuments('categories', 'demo', [
        { _id: '3', Id: 3, Catalogued: true, ParentId: null, Names: { en: 'Furniture' }, SortOrder: 1, LotCount: 1 },
      ])
      .thenDocumentsMatching('lots', 'demo', [{ _id: '10' }]);
  });

  it('moves the counts with a lot that moves to another auction and category, and changes the printed catalogue of both auctions', async () => {
    await givenEvents(lotCatalogued(10), lotCatalogued(11), lotCatalogued(10, { auctionId: 2, categoryId: 4, lotNumber: 1 }))
      .whenProjected(catalogueReadModels)
      .thenDocumentsMatching('auctions', 'demo', [
        { _id: '1', LotCount: 1, CatalogueVersion: 3 },
        { _id: '2', LotCount: 1, CatalogueVersion: 3 },
      ])
      .thenDocumentsMatching('categories', 'demo', [
        { _id: '3', LotCount: 1 },
        { _id: '4', LotCount: 1 },
      ])
      .thenDocumentsMatching('lots', 'demo', [
        { _id: '10', AuctionId: 2, CategoryId: 4, LotNumber: 1, Version: 3, Created: createdAt(1) },
        { _id: '11', AuctionId: 1, CategoryId: 3, Version: 2 },
      ]);
  });

  it("keeps the highest bid and the number of bids of a lot, each bid moving the version of its auction's lots", async () => {
    await givenEvents(auctionCatalogued(1), lotCatalogued(10), bidPlaced(10, 1500, at(1)), bidPlaced(10, 1200, at(2)))
      .whenProjected(catalogueReadModels)
      .thenDocumentsMatching('auctions', 'demo', [{ _id: '1', CatalogueVersion: 2, LotsVersion: 4 }])
      .thenDocumentsMatching('auction_types', 'demo', [{ _id: 'all' }])
      .thenDocumentsMatching('categories', 'demo', [{ _id: '3' }])
      .thenDocumentsMatching('lots', 'demo', [{ _id: '10', CurrentBid: 1500, BidCount: 2, Closed: false, EndTime: END }]);
  });

  it("keeps a lot's VAT scheme (margin by default, zero when VAT-free) and the cost fields its record gives, and an auction's, until a record leaves them out", async () => {
    const costs = { vatScheme: 'normal' as const, import: 'temporary-admission' as const, importClass: 'art' as const, resaleRight: true };
    await givenEvents(
      auctionCatalogued(1, { premiumSchedule: 'standard', channelFees: [] }),
      lotCatalogued(10, { ...costs, shippingClass: 'furniture', premiumSchedule: 'standard' }),
      lotCatalogued(11, { vatFree: true }),
      auctionCatalogued(2, { channelFees: ['live'] }),
      auctionCatalogued(2),
    )
      .whenProjected(catalogueReadModels)
      .thenDocuments('auctions', 'demo', [
        auction({ PremiumSchedule: 'standard', ChannelFees: [], LotCount: 2, CatalogueVersion: 3, LotsVersion: 3 }),
        auction({ _id: '2', Id: 2, CatalogueVersion: 5, LotsVersion: 5, Created: createdAt(4) }),
      ])
      .thenDocumentsMatching('auction_types', 'demo', [{ _id: 'all' }])
      .thenDocumentsMatching('categories', 'demo', [{ _id: '3' }])
      .thenDocumentsMatching('lots', 'demo', [
        {
          _id: '10',
          VatScheme: 'normal',
          Costs: {
            Import: 'temporary-admission',
            ImportClass: 'art',
            ResaleRight: true,
            ShippingClass: 'furniture',
            PremiumSchedule: 'standard',
          },
        },
        { _id: '11', VatScheme: 'zero' },
      ]);
  });

  it('closes a lot early at its closing time, and keeps that time when the catalogue record of the lot comes again', async () => {
    await givenEvents(lotCatalogued(10), lotClosed(10, '2026-11-22T12:05:00Z'))
      .whenProjected(catalogueReadModels)
      .thenDocumentsMatching('auctions', 'demo', [{ _id: '1', CatalogueVersion: 1, LotsVersion: 2 }])
      .thenDocumentsMatching('categories', 'demo', [{ _id: '3' }])
      .thenDocumentsMatching('lots', 'demo', [{ _id: '10', Closed: true, EndTime: at(5) }]);
    await givenEvents(
      lotCatalogued(10),
      lotClosed(10, '2026-11-22T12:05:00Z'),
      lotCatalogued(10, { endTime: '2026-12-01T18:00:00Z', startingPrice: 2000 }),
    )
      .whenProjected(catalogueReadModels)
      .thenDocumentsMatching('auctions', 'demo', [{ _id: '1', LotCount: 1 }])
      .thenDocumentsMatching('categories', 'demo', [{ _id: '3', LotCount: 1 }])
      .thenDocumentsMatching('lots', 'demo', [{ _id: '10', Closed: true, EndTime: at(5), StartingPrice: 2000, Version: 3 }]);
  });

  it("follows an auction's live sale: scheduled, moved to a lot, stopped", async () => {
    await givenEvents(
      auctionCatalogued(1),
      liveStatusChanged(1, { isLive: false, currentLotId: null, startsAt: '2026-11-30T17:00:00.000Z' }),
      liveStatusChanged(1, { isLive: true, currentLotId: 10 }),
    )
      .whenProjected(catalogueReadModels)
      .thenDocuments('auctions', 'demo', [auction({ IsLive: true, CurrentLotId: 10, LiveStartsAt: '2026-11-30T17:00:00.000Z' })])
      .thenDocuments('auction_types', 'demo', [{ _id: 'all', Types: { '1': 1 } }]);
    await givenEvents(
      auctionCatalogued(1),
      liveStatusChanged(1, { isLive: true, currentLotId: 10 }),
      liveStatusChanged(1, { isLive: false, currentLotId: null, startsAt: null }),
    )
      .whenProjected(catalogueReadModels)
      .thenDocuments('auctions', 'demo', [auction({ IsLive: false, CurrentLotId: null, LiveStartsAt: null })])
      .thenDocuments('auction_types', 'demo', [{ _id: 'all', Types: { '1': 1 } }]);
  });

  it('changes nothing for a bid or a close of a lot it has no catalogue record of', async () => {
    await givenEvents(bidPlaced(10, 1500, at(1)), lotClosed(10, at(2)))
      .whenProjected(catalogueReadModels)
      .thenNoDocuments();
  });

  it("keeps each tenant's catalogue apart: lot 10 of one tenant closing leaves lot 10 of another open", async () => {
    await givenEvents(
      lotCatalogued(10),
      lotCatalogued(10, { tenant: 'demo2', currency: 'SEK' }),
      lotClosed(10, at(5), 'demo2'),
      bidPlaced(10, 900, at(6)),
    )
      .whenProjected(catalogueReadModels)
      .thenDocumentsMatching('auctions', 'demo', [{ _id: '1', LotCount: 1 }])
      .thenDocumentsMatching('categories', 'demo', [{ _id: '3', LotCount: 1 }])
      .thenDocumentsMatching('lots', 'demo', [{ _id: '10', Currency: 'EUR', Closed: false, EndTime: END, CurrentBid: 900, BidCount: 1 }])
      .thenDocumentsMatching('auctions', 'demo2', [{ _id: '1', LotCount: 1 }])
      .thenDocumentsMatching('categories', 'demo2', [{ _id: '3', LotCount: 1 }])
      .thenDocumentsMatching('lots', 'demo2', [
        { _id: '10', Currency: 'SEK', Closed: true, EndTime: at(5), CurrentBid: null, BidCount: 0 },
      ]);
  });
});
