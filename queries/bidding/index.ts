import type { FeaturePart } from '../../src/feature.ts';
import { biddingQueryOperations } from './operations.ts';

/** The read side of timed bidding: the HTTP operations it registers (app/features/index.ts). */
export const biddingQueries: FeaturePart = { operations: biddingQueryOperations };
