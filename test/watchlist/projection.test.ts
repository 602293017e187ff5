import { watchlistReadModels } from '../../projections/watchlist/index.ts';
import type { WatchlistEvent, WatchType } from '../../commands/watchlist/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
const watched = (memberId: number, lotId: number, watchType: WatchType = 'watch', minute = 0, tenant = 'demo'): WatchlistEvent => ({
  type: 'LotWatched',
  data: { tenant, memberId, lotId, watchType, at: at(minute) },
});
const typeChanged = (memberId: number, lotId: number, watchType: WatchType, minute: number): WatchlistEvent => ({
  type: 'WatchTypeChanged',
  data: { tenant: 'demo', memberId, lotId, watchType, at: at(minute) },
});
const unwatched = (memberId: number, lotId: number, minute: number): WatchlistEvent => ({
  type: 'LotUnwatched',
  data: { tenant: 'demo', memberId, lotId, at: at(minute) },
});

describe('watchlist projection', () => {
  it('lists a watched lot under its member, with the watch type and when it was first watched', async () => {
    await givenEvents(watched(1, 5), watched(1, 6, 'favourite', 1), watched(2, 5, 'reminder', 2))
      .whenProjected(watchlistReadModels)
      .thenDocuments('watchlist', 'demo', [
        { _id: '1:5', MemberId: 1, LotId: 5, Type: 'watch', WatchedAt: at(0) },
        { _id: '1:6', MemberId: 1, LotId: 6, Type: 'favourite', WatchedAt: at(1) },
        { _id: '2:5', MemberId: 2, LotId: 5, Type: 'reminder', WatchedAt: at(2) },
      ]);
  });

  it('keeps the latest watch type of a lot and the time it was first watched', async () => {
    await givenEvents(watched(1, 5), typeChanged(1, 5, 'favourite', 3), typeChanged(1, 5, 'reminder', 4))
      .whenProjected(watchlistReadModels)
      .thenDocuments('watchlist', 'demo', [{ _id: '1:5', MemberId: 1, LotId: 5, Type: 'reminder', WatchedAt: at(0) }]);
  });

  it('removes an unwatched lot, and lists it anew when it is watched again', async () => {
    await givenEvents(watched(1, 5), watched(1, 6), unwatched(1, 5, 2))
      .whenProjected(watchlistReadModels)
      .thenDocuments('watchlist', 'demo', [{ _id: '1:6', MemberId: 1, LotId: 6, Type: 'watch', WatchedAt: at(0) }]);
    await givenEvents(watched(1, 5), unwatched(1, 5, 2), watched(1, 5, 'favourite', 7))
      .whenProjected(watchlistReadModels)
      .thenDocuments('watchlist', 'demo', [{ _id: '1:5', MemberId: 1, LotId: 5, Type: 'favourite', WatchedAt: at(7) }]);
  });

  it("keeps each tenant's watchlists apart: the same member and lot ids of another tenant are another entry", async () => {
    await givenEvents(watched(1, 5), watched(1, 5, 'favourite', 1, 'demo2'), unwatched(1, 5, 2))
      .whenProjected(watchlistReadModels)
      .thenDocuments('watchlist', 'demo', [])
      .thenDocuments('watchlist', 'demo2', [{ _id: '1:5', MemberId: 1, LotId: 5, Type: 'favourite', WatchedAt: at(1) }]);
  });
});
