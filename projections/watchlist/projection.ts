import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { watchlistEvents } from '../../commands/watchlist/events.ts';
import type { Doc } from '../../src/ports/read-models.ts';

export interface WatchDoc extends Doc {
  MemberId: number;
  LotId: number;
  Type: string;
  WatchedAt: string;
}

export const watchId = (memberId: number, lotId: number) => `${memberId}:${lotId}`;

/** Its collection's name; queries reach it through watchlistEntries(db) (collections.ts). */
export const WATCHLIST = 'watchlist';

export const watchlistProjection = defineDocumentProjection({
  name: 'watchlist',
  events: [watchlistEvents],
  collections: [{ name: WATCHLIST, indexes: [{ fields: ['MemberId', 'WatchedAt'] }, { fields: ['MemberId', 'Type', 'WatchedAt'] }] }],
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
