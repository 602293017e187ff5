import { defineDocumentProjection, type UnitOfWork } from '../../src/projector/projection.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';
import { catalogueLotEvents } from '../../commands/lots/events.ts';
import type { Doc } from '../../src/ports/read-models.ts';
import { BIDS, type BidDoc, bidId } from './collections.ts';

/**
 * Bid histories: one document per accepted bid, numbered per lot in the order the log holds them, with
 * what the public bid lists filter on (the lot's auction and end time). No bidder identity: the log's
 * BidPlaced has none. `bid_lots` keeps what this projection needs of the catalogue, so it rebuilds on its own.
 */
const BID_LOTS = 'bid_lots';

interface BidLot {
  AuctionId: number;
  LotNumber: number;
  Currency: string;
  EndTime: string;
  Closed: boolean;
  BidCount: number;
}
type BidLotDoc = Doc & BidLot;

const isoMs = (time: string) => new Date(time).toISOString();

/** Copies what the bids of a lot show of it onto each of them. */
async function refreshBids(uow: UnitOfWork, tenant: string, lotId: number, lot: BidLot) {
  for (let seq = 1; seq <= lot.BidCount; seq++)
    await uow.update<BidDoc>(BIDS, tenant, bidId(lotId, seq), (doc) =>
      doc ? { ...doc, AuctionId: lot.AuctionId, LotNumber: lot.LotNumber, Currency: lot.Currency, LotEndTime: lot.EndTime } : null,
    );
}

const shown = (lot: BidLot | null) => (lot ? JSON.stringify([lot.AuctionId, lot.LotNumber, lot.Currency, lot.EndTime]) : '');

export const bidsProjection = defineDocumentProjection({
  name: 'bids',
  // A lot's documents change with each of its bids: kept between live batches instead of read back each time.
  keepDocuments: 5_000,
  events: [catalogueEvents, catalogueLotEvents],
  handles: ['LotCatalogued', 'LotClosed', 'BidPlaced'],
  collections: [{ name: BIDS, indexes: [{ fields: ['LotId', 'Seq'] }, { fields: ['PlacedAt'] }] }, { name: BID_LOTS }],
  async apply(event, uow) {
    switch (event.type) {
      case 'LotCatalogued': {
        const d = event.data;
        const old = await uow.get<BidLotDoc>(BID_LOTS, d.tenant, String(d.lotId));
        if (old && (old._pos as number) >= event.position) return;
        const endTime = isoMs(d.endTime);
        const next = {
          AuctionId: d.auctionId,
          LotNumber: d.lotNumber,
          Currency: d.currency,
          // A lot closed early keeps its closing time when the catalogue record comes again.
          EndTime: old?.Closed && old.EndTime < endTime ? old.EndTime : endTime,
          Closed: old?.Closed ?? false,
          BidCount: old?.BidCount ?? 0,
        };
        await uow.update<BidLotDoc>(BID_LOTS, d.tenant, String(d.lotId), () => next);
        if (shown(old) !== shown(next)) await refreshBids(uow, d.tenant, d.lotId, next);
        return;
      }
      case 'LotClosed': {
        const d = event.data;
        const old = await uow.get<BidLotDoc>(BID_LOTS, d.tenant, String(d.lotId));
        if (!old || (old._pos as number) >= event.position) return;
        const closedAt = isoMs(d.closedAt);
        const next = { ...old, Closed: true, EndTime: old.EndTime < closedAt ? old.EndTime : closedAt };
        await uow.update<BidLotDoc>(BID_LOTS, d.tenant, String(d.lotId), () => next);
        if (next.EndTime !== old.EndTime) await refreshBids(uow, d.tenant, d.lotId, next);
        return;
      }
      case 'BidPlaced': {
        const d = event.data;
        const lot = await uow.get<BidLotDoc>(BID_LOTS, d.tenant, String(d.lotId));
        if (!lot || (lot._pos as number) >= event.position) return;
        const seq = lot.BidCount + 1;
        await uow.update<BidLotDoc>(BID_LOTS, d.tenant, String(d.lotId), (doc) => ({ ...doc!, BidCount: seq }));
        await uow.update<BidDoc>(BIDS, d.tenant, bidId(d.lotId, seq), () => ({
          LotId: d.lotId,
          AuctionId: lot.AuctionId,
          LotNumber: lot.LotNumber,
          Seq: seq,
          Amount: d.amount,
          Currency: lot.Currency,
          PlacedAt: isoMs(d.placedAt),
          BidType: d.bidType,
          LotEndTime: lot.EndTime,
        }));
        return;
      }
    }
  },
});
