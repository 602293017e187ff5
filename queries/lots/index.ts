import type { FeaturePart } from '../../src/feature.ts';
import { lotsQueryOperations } from './operations.ts';

/** The read side of lots: the HTTP operations it registers (app/features/index.ts). */
export const lotsQueries: FeaturePart = { operations: lotsQueryOperations };
