import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

export interface WatchDoc extends Doc {
  MemberId: number;
  LotId: number;
  Type: string;
  WatchedAt: string;
}

export const watchId = (memberId: number, lotId: number) => `${memberId}:${lotId}`;

/** Its collection's name (the projection's too). */
export const WATCHLIST = 'watchlist';

/** The watchlist projection's collection with its document type. */
export const watchlistEntries = (db: TenantScope) => db.collection<WatchDoc>(WATCHLIST);
