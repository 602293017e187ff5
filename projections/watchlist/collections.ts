import type { TenantScope } from '../../src/ports/read-models.ts';
import { WATCHLIST, type WatchDoc } from './projection.ts';

/** The watchlist projection's collection with its document type (the name is the projection's). */
export const watchlistEntries = (db: TenantScope) => db.collection<WatchDoc>(WATCHLIST);
