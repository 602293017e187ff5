import { defineDocumentProjection, type UnitOfWork } from '../../src/projector/projection.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';
import { catalogueLotEvents, timedBiddingEvents } from '../../commands/lots/events.ts';
import type { Doc } from '../../src/ports/read-models.ts';
import { BIDS, type BidDoc, bidId } from './collections.ts';

/**
 * Bid histories: one document per accepted bid, numbered per lot in the order the log holds them, with
 * what the public bid lists filter on (the lot's auction and end time). No bidder identity: the log's
 * BidPlaced has none. On a timed lot each bid carries the pseudonym of the bidder who leads after it (a public
 * bid is the leader's, by proxy bidding): `Bidder 1` for the lot's first bidder, and so on, from the private
 * MaxBidPlaced events, whose members stay in `bid_lots`. `bid_lots` keeps what this projection needs of the
 * catalogue, so it rebuilds on its own.
 */
const BID_LOTS = 'bid_lots';

interface BidLot {
  AuctionId: number;
  LotNumber: number;
  Currency: string;
  EndTime: string;
  Closed: boolean;
  BidCount: number;
  /** Each bidder's current maximum and its place among the lot's maxima (timed bidding; private, never served). */
  Maxima?: Array<{ Member: number; Amount: number; Seq: number }>;
  /** The lot's bidders' pseudonyms by member id, in the order they first bid (private, never served). */
  Bidders?: Record<string, number>;
}
type BidLotDoc = Doc & BidLot;

const isoMs = (time: string) => new Date(time).toISOString();

/** The leader among the maxima: the highest, between equal ones the earlier (as timed bidding decides it). */
function leaderOf(maxima: NonNullable<BidLot['Maxima']>): number | null {
  let leader: (typeof maxima)[number] | null = null;
  for (const m of maxima) if (!leader || m.Amount > leader.Amount || (m.Amount === leader.Amount && m.Seq < leader.Seq)) leader = m;
  return leader?.Member ?? null;
}

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
  events: [catalogueEvents, catalogueLotEvents, timedBiddingEvents],
  handles: ['LotCatalogued', 'LotClosed', 'BidPlaced', 'MaxBidPlaced'],
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
          ...(old?.Maxima ? { Maxima: old.Maxima, Bidders: old.Bidders } : {}),
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
        const leader = leaderOf(lot.Maxima ?? []);
        await uow.update<BidLotDoc>(BID_LOTS, d.tenant, String(d.lotId), (doc) => ({ ...doc!, BidCount: seq }));
        // Seq is new: the lot's BidCount, guarded by its _pos, numbers every bid once (no read of the bid first).
        uow.create<BidDoc>(BIDS, d.tenant, bidId(d.lotId, seq), {
          LotId: d.lotId,
          AuctionId: lot.AuctionId,
          LotNumber: lot.LotNumber,
          Seq: seq,
          Amount: d.amount,
          Currency: lot.Currency,
          PlacedAt: isoMs(d.placedAt),
          BidType: d.bidType,
          LotEndTime: lot.EndTime,
          // Timed bidding's bids only: the house's own engine's carry no bidder.
          ...(leader === null ? {} : { Pseudonym: lot.Bidders?.[String(leader)] }),
        });
        return;
      }
      case 'MaxBidPlaced': {
        const d = event.data;
        const lot = await uow.get<BidLotDoc>(BID_LOTS, d.tenant, String(d.lotId));
        if (!lot || (lot._pos as number) >= event.position) return;
        const maxima = (lot.Maxima ?? []).filter((m) => m.Member !== d.memberId);
        const seq = 1 + (lot.Maxima ?? []).reduce((last, m) => Math.max(last, m.Seq), 0);
        const bidders = { ...lot.Bidders };
        bidders[String(d.memberId)] ??= Object.keys(bidders).length + 1;
        await uow.update<BidLotDoc>(BID_LOTS, d.tenant, String(d.lotId), (doc) => ({
          ...doc!,
          Maxima: [...maxima, { Member: d.memberId, Amount: d.maxAmount, Seq: seq }],
          Bidders: bidders,
        }));
        return;
      }
    }
  },
});
