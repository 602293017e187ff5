import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { outranks, timedBiddingEvents } from '../../commands/lots/events.ts';
import { LOT_BIDDERS, MEMBER_BIDS, memberBidId, type LotBiddersDoc, type MemberBidDoc } from './collections.ts';

/** The leader of a lot's maxima: the highest, between equal ones the earlier (as the bidding decider ranks them). */
function leaderOf(maxima: LotBiddersDoc['Maxima']): number | null {
  let leader: [string, { Max: number; Seq: number }] | null = null;
  for (const entry of Object.entries(maxima))
    if (!leader || outranks({ amount: entry[1].Max, seq: entry[1].Seq }, { amount: leader[1].Max, seq: leader[1].Seq })) leader = entry;
  return leader ? Number(leader[0]) : null;
}

/** The bidders' own view of timed bidding (`GET /v1/me/bids`): each member's lots with their maximum and whether they lead, won or lost. */
export const biddingProjection = defineDocumentProjection({
  name: 'bidding',
  // A lot's documents change with each of its bids: kept between live batches instead of read back each time.
  keepDocuments: 5_000,
  events: [timedBiddingEvents],
  handles: ['MaxBidPlaced', 'LotSettled'],
  collections: [
    {
      name: MEMBER_BIDS,
      indexes: [{ fields: ['MemberId', 'LastBidAt'] }, { fields: ['MemberId', 'Status', 'LastBidAt'] }],
      // Who bid what maximum on which lot (MaxBidPlaced's private fields); named by member and lot.
      private: ['MemberId', 'MaxAmount'],
      privateIds: true,
    },
    { name: LOT_BIDDERS, private: ['Maxima', 'Leader'] },
  ],
  async apply(event, uow) {
    const d = event.data;
    if (event.type === 'MaxBidPlaced') {
      const { memberId, lotId, tenant } = event.data;
      let before: number | null = null;
      let after: number | null = null;
      await uow.update<LotBiddersDoc>(LOT_BIDDERS, tenant, String(lotId), (doc) => {
        const lot = doc ?? ({ LotId: lotId, Maxima: {}, Seq: 0, Leader: null } as unknown as LotBiddersDoc);
        before = lot.Leader;
        lot.Seq += 1;
        // A raise takes its place at the time of the raise, as the decider ranks it.
        lot.Maxima[String(memberId)] = { Max: event.data.maxAmount, Seq: lot.Seq };
        lot.Leader = leaderOf(lot.Maxima);
        after = lot.Leader;
        return lot;
      });
      await uow.update<MemberBidDoc>(MEMBER_BIDS, tenant, memberBidId(memberId, lotId), () => ({
        MemberId: memberId,
        LotId: lotId,
        AuctionId: event.data.auctionId,
        MaxAmount: event.data.maxAmount,
        Status: after === memberId ? 'leading' : 'outbid',
        LastBidAt: event.data.at,
      }));
      if (before !== null && before !== after && before !== memberId)
        await uow.update<MemberBidDoc>(MEMBER_BIDS, tenant, memberBidId(before, lotId), (doc) =>
          doc ? { ...doc, Status: 'outbid' } : null,
        );
      if (after !== null && after !== memberId && after !== before)
        await uow.update<MemberBidDoc>(MEMBER_BIDS, tenant, memberBidId(after, lotId), (doc) =>
          doc ? { ...doc, Status: 'leading' } : null,
        );
      return;
    }
    // LotSettled: the winner won, every other bidder lost (on an unsold lot, everyone).
    const bidders = await uow.get<LotBiddersDoc>(LOT_BIDDERS, d.tenant, String(d.lotId));
    for (const member of Object.keys(bidders?.Maxima ?? {}).map(Number))
      await uow.update<MemberBidDoc>(MEMBER_BIDS, d.tenant, memberBidId(member, d.lotId), (doc) =>
        doc ? { ...doc, Status: event.data.sold && event.data.winnerMemberId === member ? 'won' : 'lost' } : null,
      );
  },
});
