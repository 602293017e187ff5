import type { FeaturePart } from '../../src/feature.ts';
import { translationsQueryOperations } from './operations.ts';

/** The read side of languages and the interface dictionary: the HTTP operations it registers (app/features/index.ts). */
export const translationsQueries: FeaturePart = { operations: translationsQueryOperations };
