import type { FeaturePart } from '../../src/feature.ts';
import { pushQueryOperations } from './operations.ts';

/** The read side of Web Push: the HTTP operations it registers (app/features/index.ts). */
export const pushQueries: FeaturePart = { operations: pushQueryOperations };
