import { watchlistDecider, WatchlistFullError, MAX_WATCHED } from '../../commands/watchlist/decide.ts';
import { NotFoundError } from '../../src/errors.ts';
import type { WatchlistEvent } from '../../commands/watchlist/events.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const base = { tenant: 'demo', memberId: 1, at };
const watched = (lotId: number, watchType: 'watch' | 'favourite' | 'reminder' = 'watch'): WatchlistEvent => ({
  type: 'LotWatched',
  data: { ...base, lotId, watchType },
});

describe('watchlist decider', () => {
  it('watches a lot that exists and is not watched yet', () => {
    spec(watchlistDecider)
      .given([])
      .when({ type: 'WatchLot', ...base, lotId: 5, watchType: 'watch', lotExists: true })
      .then([watched(5)]);
  });

  it('appends nothing when the lot is already watched with the same type', () => {
    spec(watchlistDecider)
      .given([watched(5)])
      .when({ type: 'WatchLot', ...base, lotId: 5, watchType: 'watch', lotExists: true })
      .thenNothingHappened();
  });

  it('changes the watch type of a watched lot', () => {
    spec(watchlistDecider)
      .given([watched(5)])
      .when({ type: 'WatchLot', ...base, lotId: 5, watchType: 'favourite', lotExists: true })
      .then([{ type: 'WatchTypeChanged', data: { ...base, lotId: 5, watchType: 'favourite' } }]);
  });

  it('refuses to watch a lot that does not exist', () => {
    spec(watchlistDecider)
      .given([])
      .when({ type: 'WatchLot', ...base, lotId: 99, watchType: 'watch', lotExists: false })
      .thenThrows(NotFoundError);
  });

  it('watches a lot again after it was unwatched', () => {
    spec(watchlistDecider)
      .given([watched(5), { type: 'LotUnwatched', data: { ...base, lotId: 5 } }])
      .when({ type: 'WatchLot', ...base, lotId: 5, watchType: 'reminder', lotExists: true })
      .then([watched(5, 'reminder')]);
  });

  it('unwatches a watched lot once, and appends nothing for a lot that is not watched', () => {
    spec(watchlistDecider)
      .given([watched(5)])
      .when({ type: 'UnwatchLot', ...base, lotId: 5 })
      .then([{ type: 'LotUnwatched', data: { ...base, lotId: 5 } }]);
    spec(watchlistDecider)
      .given([watched(5)])
      .when({ type: 'UnwatchLot', ...base, lotId: 6 })
      .thenNothingHappened();
  });

  it('refuses a new lot once the watchlist is full', () => {
    const full = Array.from({ length: MAX_WATCHED }, (_, i) => watched(i + 1));
    spec(watchlistDecider)
      .given(full)
      .when({ type: 'WatchLot', ...base, lotId: MAX_WATCHED + 1, watchType: 'watch', lotExists: true })
      .thenThrows(WatchlistFullError);
  });
});
