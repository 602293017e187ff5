import type { FeaturePart } from '../../src/feature.ts';
import { categoriesQueryOperations } from './operations.ts';

/** The read side of the category tree: the HTTP operations it registers (app/features/index.ts). */
export const categoriesQueries: FeaturePart = { operations: categoriesQueryOperations };
