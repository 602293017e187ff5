import type { FeaturePart } from '../../src/feature.ts';
import { watchlistQueryOperations } from './operations.ts';

/** The read side of the member's watchlist: the HTTP operations it registers (app/features/index.ts). */
export const watchlistQueries: FeaturePart = { operations: watchlistQueryOperations };
