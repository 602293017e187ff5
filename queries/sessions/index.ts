import type { FeaturePart } from '../../src/feature.ts';
import { sessionsQueryOperations } from './operations.ts';

/** The read side of sign-in: the HTTP operations it registers (app/features/index.ts). */
export const sessionsQueries: FeaturePart = { operations: sessionsQueryOperations };
