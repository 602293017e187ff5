import type { FeaturePart } from '../../src/feature.ts';
import { attributesQueryOperations } from './operations.ts';

/** The read side of the attribute values of lots: the HTTP operations it registers (app/features/index.ts). */
export const attributesQueries: FeaturePart = { operations: attributesQueryOperations };
