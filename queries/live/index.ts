import type { FeaturePart } from '../../src/feature.ts';
import { liveQueryOperations } from './operations.ts';

/** The read side of live-auction status: the HTTP operations it registers (app/features/index.ts). */
export const liveQueries: FeaturePart = { operations: liveQueryOperations };
