import type { FeaturePart } from '../../src/feature.ts';
import { auctionsQueryOperations } from './operations.ts';

/** The read side of auctions, their translations, lot numbers and categories: the HTTP operations it registers (app/features/index.ts). */
export const auctionsQueries: FeaturePart = { operations: auctionsQueryOperations };
