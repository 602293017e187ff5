import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

/** Watch types a bidder can give a watched lot; `watch` is the default. */
export const watchTypes = ['watch', 'favourite', 'reminder'] as const;
export type WatchType = (typeof watchTypes)[number];

export const LotWatched = defineEvent({
  type: 'LotWatched',
  version: 1,
  stream: 'watchlist-{tenant}-{memberId}',
  description: 'A bidder added a lot to their watchlist with a watch type.',
  schema: z.object({ tenant: tenantId, memberId: positiveId, lotId: positiveId, watchType: z.enum(watchTypes), at: isoDateTime }),
});

export const WatchTypeChanged = defineEvent({
  type: 'WatchTypeChanged',
  version: 1,
  stream: 'watchlist-{tenant}-{memberId}',
  description: 'A bidder watched an already watched lot with another watch type.',
  schema: z.object({ tenant: tenantId, memberId: positiveId, lotId: positiveId, watchType: z.enum(watchTypes), at: isoDateTime }),
});

export const LotUnwatched = defineEvent({
  type: 'LotUnwatched',
  version: 1,
  stream: 'watchlist-{tenant}-{memberId}',
  description: 'A bidder removed a lot from their watchlist.',
  schema: z.object({ tenant: tenantId, memberId: positiveId, lotId: positiveId, at: isoDateTime }),
});

export const watchlistEvents = defineEvents([LotWatched, WatchTypeChanged, LotUnwatched]);
export type WatchlistEvent = EventsOf<typeof watchlistEvents>;

/** A member's watchlist: one stream per member. */
export const watchlistStreamId = (tenant: string, memberId: number) => `watchlist-${tenant}-${memberId}`;
