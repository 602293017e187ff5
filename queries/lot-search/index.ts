import type { FeaturePart } from '../../src/feature.ts';
import { lotSearchQueryOperations } from './operations.ts';

/** The read side of the lot search: the HTTP operations it registers (app/features/index.ts). */
export const lotSearchQueries: FeaturePart = { operations: lotSearchQueryOperations };
