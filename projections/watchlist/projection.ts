import type { DocumentProjection } from '../../src/projector/projection.ts';
import { asAppEvent } from '../../src/events/registry.ts';
import type { Doc } from '../../src/ports/read-models.ts';

export interface WatchDoc extends Doc {
  MemberId: number;
  LotId: number;
  Type: string;
  WatchedAt: string;
}

export const watchId = (memberId: number, lotId: number) => `${memberId}:${lotId}`;

export const watchlistProjection: DocumentProjection = {
  kind: 'documents',
  name: 'watchlist',
  collections: [{ name: 'watchlist', indexes: [{ fields: ['MemberId', 'WatchedAt'] }, { fields: ['MemberId', 'Type', 'WatchedAt'] }] }],
  handles: ['LotWatched', 'WatchTypeChanged', 'LotUnwatched'],
  async apply(recorded, uow) {
    const event = asAppEvent(recorded);
    switch (event.type) {
      case 'LotWatched':
      case 'WatchTypeChanged': {
        const d = event.data;
        await uow.update<WatchDoc>('watchlist', d.tenant, watchId(d.memberId, d.lotId), (doc) => ({
          MemberId: d.memberId,
          LotId: d.lotId,
          Type: d.watchType,
          WatchedAt: doc?.WatchedAt ?? d.at,
        }));
        return;
      }
      case 'LotUnwatched': {
        const d = event.data;
        await uow.update<WatchDoc>('watchlist', d.tenant, watchId(d.memberId, d.lotId), () => null);
        return;
      }
    }
  },
};
