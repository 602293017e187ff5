import { biddingReadModels } from '../../projections/bidding/index.ts';
import type { TimedBiddingEvent } from '../../commands/lots/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
const bidId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const maxBid = (
  memberId: number,
  maxAmount: number,
  minute: number,
  outbidMemberId: number | null = null,
  lotId = 7,
): TimedBiddingEvent => ({
  type: 'MaxBidPlaced',
  data: { tenant: 'demo', lotId, auctionId: 10, bidId: bidId(minute), memberId, maxAmount, outbidMemberId, at: at(minute) },
});
const settled = (sold: boolean, winnerMemberId: number | null, minute: number): TimedBiddingEvent => ({
  type: 'LotSettled',
  data: { tenant: 'demo', lotId: 7, sold, hammerPrice: sold ? 3000 : null, winnerMemberId, at: at(minute) },
});
const mine = (memberId: number, maxAmount: number, status: string, minute: number, lotId = 7) => ({
  _id: `${memberId}:${lotId}`,
  MemberId: memberId,
  LotId: lotId,
  AuctionId: 10,
  MaxAmount: maxAmount,
  Status: status,
  LastBidAt: at(minute),
});

describe('bidding projection (the bidders’ own view, 59)', () => {
  it('keeps each bidder’s maximum and whether they lead, moving the lead as maxima come (equal maxima: the earlier leads)', async () => {
    await givenEvents(maxBid(1, 2000, 0), maxBid(2, 3000, 1, 1), maxBid(3, 3000, 2), maxBid(1, 5000, 3, 2))
      .whenProjected(biddingReadModels)
      .thenDocuments('member_bids', 'demo', [mine(1, 5000, 'leading', 3), mine(2, 3000, 'outbid', 1), mine(3, 3000, 'outbid', 2)])
      .thenDocuments('lot_bidders', 'demo', [
        {
          _id: '7',
          LotId: 7,
          Seq: 4,
          Leader: 1,
          Maxima: { '1': { Max: 5000, Seq: 4 }, '2': { Max: 3000, Seq: 2 }, '3': { Max: 3000, Seq: 3 } },
        },
      ]);
  });

  it('says won to the winner and lost to every other bidder at the close, and lost to everyone on an unsold lot', async () => {
    await givenEvents(maxBid(1, 2000, 0), maxBid(2, 3000, 1, 1), settled(true, 2, 9))
      .whenProjected(biddingReadModels)
      .thenDocuments('member_bids', 'demo', [mine(1, 2000, 'lost', 0), mine(2, 3000, 'won', 1)])
      .thenDocuments('lot_bidders', 'demo', [
        { _id: '7', LotId: 7, Seq: 2, Leader: 2, Maxima: { '1': { Max: 2000, Seq: 1 }, '2': { Max: 3000, Seq: 2 } } },
      ]);
    await givenEvents(maxBid(1, 2000, 0), settled(false, null, 9))
      .whenProjected(biddingReadModels)
      .thenDocuments('member_bids', 'demo', [mine(1, 2000, 'lost', 0)])
      .thenDocuments('lot_bidders', 'demo', [{ _id: '7', LotId: 7, Seq: 1, Leader: 1, Maxima: { '1': { Max: 2000, Seq: 1 } } }]);
  });
});
