// Web Push's reactor, given events, then jobs: a bid plans the lot's closing pushes and tells the bidder it
// outbid; a settled lot is told its bidders; a watch plans the closing pushes; a reminder dispatched by push is
// sent. Each job keyed so that a replayed event asks for nothing new (this process does not even ask again).
import { expect } from 'chai';
import { pushCommands } from '../../commands/push/index.ts';
import type { TimedBiddingEvent } from '../../commands/lots/events.ts';
import type { WatchlistEvent } from '../../commands/watchlist/events.ts';
import type { NotificationsEvent } from '../../commands/notifications/events.ts';
import { jobsAddedFor } from '../support/reactor-spec.ts';

type Event = TimedBiddingEvent | WatchlistEvent | NotificationsEvent;
const at = '2026-11-22T10:00:00.000Z';
const bidId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const messageId = 'notification-7d9f1c2e-4b3a-4e5f-9a8b-0c1d2e3f4a5b';
const options = (jobId: string) => ({ jobId, attempts: 5, backoffMs: 2000 });

const bid = (outbidMemberId: number | null): Event => ({
  type: 'MaxBidPlaced',
  data: { tenant: 'demo', lotId: 7, auctionId: 10, bidId, memberId: 2, maxAmount: 3000, outbidMemberId, at },
});
const dispatched = (channel: 'email' | 'push'): Event => ({
  type: 'NotificationDispatched',
  data: {
    tenant: 'demo',
    subscriptionId: '7d9f1c2e-4b3a-4e5f-9a8b-0c1d2e3f4a5b',
    memberId: 1,
    lotId: 7,
    channel,
    messageId,
    lotEndTime: '2026-11-30T18:00:00.000Z',
    at,
  },
});

describe('push reactor, given events, then jobs', () => {
  it("plans a lot's closing pushes at its first bid and tells the bidder outbid, once for a replay", async () => {
    expect(await jobsAddedFor(pushCommands, [bid(1)], { times: 2 })).to.deep.equal([
      { name: 'push-closing', data: { tenant: 'demo', lotId: 7 }, options: options('push-closing-demo-7-plan') },
      {
        name: 'push-outbid',
        data: { tenant: 'demo', lotId: 7, memberId: 1, bidId, at, position: 1 },
        options: options(`push-outbid-demo-7-1-${bidId}`),
      },
    ]);
    // A bid that outbid no one only plans the closing pushes.
    expect((await jobsAddedFor(pushCommands, [bid(null)])).map((job) => job.name)).to.deep.equal(['push-closing']);
  });

  it("tells a settled lot's bidders, and plans a watched lot's closing pushes", async () => {
    const settled: Event = { type: 'LotSettled', data: { tenant: 'demo', lotId: 7, sold: true, hammerPrice: 3000, winnerMemberId: 2, at } };
    const watched: Event = { type: 'LotWatched', data: { tenant: 'demo', memberId: 1, lotId: 8, watchType: 'favourite', at } };
    expect(await jobsAddedFor(pushCommands, [settled, watched])).to.deep.equal([
      { name: 'push-settled', data: { tenant: 'demo', lotId: 7, position: 1 }, options: options('push-settled-demo-7-1') },
      { name: 'push-closing', data: { tenant: 'demo', lotId: 8 }, options: options('push-closing-demo-8-plan') },
    ]);
  });

  it('sends a lot-end reminder dispatched by push, and none dispatched by another channel', async () => {
    expect(await jobsAddedFor(pushCommands, [dispatched('email'), dispatched('push')])).to.deep.equal([
      {
        name: 'push-reminder',
        data: { tenant: 'demo', memberId: 1, lotId: 7, messageId, lotEndTime: '2026-11-30T18:00:00.000Z', at },
        options: options(`push-${messageId}`),
      },
    ]);
  });
});
