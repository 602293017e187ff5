import type { FeaturePart } from '../../src/feature.ts';
import { bidsQueryOperations } from './operations.ts';

/** The read side of bid histories: the HTTP operations it registers (app/features/index.ts). */
export const bidsQueries: FeaturePart = { operations: bidsQueryOperations };
