import type { FeaturePart } from '../../src/feature.ts';
import { lotLinksQueryOperations } from './operations.ts';

/** The read side of a lot's links: the HTTP operations it registers (app/features/index.ts). */
export const lotLinksQueries: FeaturePart = { operations: lotLinksQueryOperations };
