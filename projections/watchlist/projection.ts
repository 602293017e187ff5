import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { watchlistEvents } from '../../commands/watchlist/events.ts';
import { WATCHLIST, watchId, type WatchDoc } from './collections.ts';

export const watchlistProjection = defineDocumentProjection({
  name: 'watchlist',
  // A bidder's watches change batch after batch (watched, type changed, unwatched): kept instead of read back each time.
  keepDocuments: 5_000,
  events: [watchlistEvents],
  collections: [
    {
      name: WATCHLIST,
      // By lot too: who watches a lot that closes in ten minutes (the push feature's closing).
      indexes: [{ fields: ['MemberId', 'WatchedAt'] }, { fields: ['MemberId', 'Type', 'WatchedAt'] }, { fields: ['LotId', 'WatchedAt'] }],
    },
  ],
  async apply(event, uow) {
    switch (event.type) {
      case 'LotWatched':
      case 'WatchTypeChanged': {
        const d = event.data;
        await uow.update<WatchDoc>(WATCHLIST, d.tenant, watchId(d.memberId, d.lotId), (doc) => ({
          MemberId: d.memberId,
          LotId: d.lotId,
          Type: d.watchType,
          WatchedAt: doc?.WatchedAt ?? d.at,
        }));
        return;
      }
      case 'LotUnwatched': {
        const d = event.data;
        await uow.update<WatchDoc>(WATCHLIST, d.tenant, watchId(d.memberId, d.lotId), () => null);
        return;
      }
    }
  },
});
