import type { FeaturePart } from '../../src/feature.ts';
import { costsQueryOperations } from './operations.ts';

/** The read side of costs: the cost estimate of a lot (app/features/index.ts). */
export const costsQueries: FeaturePart = { operations: costsQueryOperations };
