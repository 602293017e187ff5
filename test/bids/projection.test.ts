import { expect } from 'chai';
import { bidsReadModels } from '../../projections/bids/index.ts';
import { UnitOfWork } from '../../src/projector/projection.ts';
import type { Doc, WriteTarget } from '../../src/ports/read-models.ts';
import { givenEvents, record, registered } from '../support/projection-spec.ts';
import { bidPlaced, lotCatalogued, lotClosed } from '../support/catalogue-events.ts';

const END = '2026-11-30T18:00:00.000Z';
const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;

/** What the bids projection keeps of a lot (its own copy of the catalogue, so it rebuilds on its own). */
const bidLot = (lotId: number, fields: Record<string, unknown> = {}) => ({
  _id: String(lotId),
  AuctionId: 1,
  LotNumber: lotId,
  Currency: 'EUR',
  EndTime: END,
  Closed: false,
  BidCount: 0,
  ...fields,
});
const bid = (lotId: number, seq: number, amount: number, minute: number, fields: Record<string, unknown> = {}) => ({
  _id: `${lotId}:${seq}`,
  LotId: lotId,
  AuctionId: 1,
  LotNumber: lotId,
  Seq: seq,
  Amount: amount,
  Currency: 'EUR',
  PlacedAt: at(minute),
  BidType: 'online',
  LotEndTime: END,
  ...fields,
});

describe('bids projection', () => {
  it("numbers a lot's bids in the order of the log, each with the lot's auction, number, currency and end time", async () => {
    await givenEvents(
      lotCatalogued(7),
      lotCatalogued(8),
      bidPlaced(7, 1000, at(1)),
      bidPlaced(8, 2000, at(2), { bidType: 'absentee' }),
      bidPlaced(7, 1100, '2026-11-22T12:03:00Z'),
    )
      .whenProjected(bidsReadModels)
      .thenDocuments('bids', 'demo', [bid(7, 1, 1000, 1), bid(7, 2, 1100, 3), bid(8, 1, 2000, 2, { BidType: 'absentee' })])
      .thenDocuments('bid_lots', 'demo', [bidLot(7, { BidCount: 2 }), bidLot(8, { BidCount: 1 })]);
  });

  it('lists no bid of a lot it has no catalogue record of', async () => {
    await givenEvents(bidPlaced(7, 1000, at(1)))
      .whenProjected(bidsReadModels)
      .thenNoDocuments();
  });

  it("moves the lot's end time on its bids to the closing time when it closes early, and keeps it when the catalogue record comes again", async () => {
    await givenEvents(
      lotCatalogued(7),
      bidPlaced(7, 1000, at(1)),
      lotClosed(7, '2026-11-22T12:05:00Z'),
      lotCatalogued(7, { endTime: '2026-12-01T18:00:00Z' }),
    )
      .whenProjected(bidsReadModels)
      .thenDocuments('bids', 'demo', [bid(7, 1, 1000, 1, { LotEndTime: at(5) })])
      .thenDocuments('bid_lots', 'demo', [bidLot(7, { Closed: true, EndTime: at(5), BidCount: 1 })]);
  });

  it("copies a changed lot number, auction or end time of the lot's catalogue record onto its bids", async () => {
    await givenEvents(
      lotCatalogued(7),
      bidPlaced(7, 1000, at(1)),
      lotCatalogued(7, { auctionId: 2, lotNumber: 70, endTime: '2026-12-01T18:00:00Z' }),
    )
      .whenProjected(bidsReadModels)
      .thenDocuments('bids', 'demo', [bid(7, 1, 1000, 1, { AuctionId: 2, LotNumber: 70, LotEndTime: '2026-12-01T18:00:00.000Z' })])
      .thenDocuments('bid_lots', 'demo', [bidLot(7, { AuctionId: 2, LotNumber: 70, EndTime: '2026-12-01T18:00:00.000Z', BidCount: 1 })]);
  });

  it("keeps each tenant's bids apart: a bid on lot 7 of one tenant is not a bid on lot 7 of another", async () => {
    await givenEvents(
      lotCatalogued(7),
      lotCatalogued(7, { tenant: 'demo2', currency: 'SEK' }),
      bidPlaced(7, 5000, at(1), { tenant: 'demo2' }),
      lotClosed(7, at(2)),
    )
      .whenProjected(bidsReadModels)
      .thenDocuments('bids', 'demo', [])
      .thenDocuments('bid_lots', 'demo', [bidLot(7, { Closed: true, EndTime: at(2) })])
      .thenDocuments('bids', 'demo2', [bid(7, 1, 5000, 1, { Currency: 'SEK' })])
      .thenDocuments('bid_lots', 'demo2', [bidLot(7, { Currency: 'SEK', BidCount: 1 })]);
  });

  it('writes a new bid without reading it first: its number comes from the lot it read', async () => {
    const [catalogued, placed] = record([lotCatalogued(7), bidPlaced(7, 1000, at(1))]);
    const reads: string[] = [];
    const stored = new Map<string, Doc>([['bid_lots/7', { ...bidLot(7, { BidCount: 2 }), _pos: catalogued.position }]]);
    const target: WriteTarget = {
      get: async (collection, _tenant, id) => (reads.push(`${collection}/${id}`), stored.get(`${collection}/${id}`) ?? null),
      commit: async () => {},
    };
    const uow = new UnitOfWork(target);
    uow.current = placed;
    await registered(bidsReadModels, 'documents').apply(placed, uow);
    expect(reads).to.deep.equal(['bid_lots/7']);
    const written = uow.ops().map((op) => (op.op === 'put' ? `${op.collection}/${op.doc._id}` : op.op));
    expect(written).to.have.members(['bid_lots/7', 'bids/7:3']);
  });
});
