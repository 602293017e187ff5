import type { FeaturePart } from '../../src/feature.ts';
import { registrationsQueryOperations } from './operations.ts';

/** The read side of auction and lot registrations: the HTTP operations it registers (app/features/index.ts). */
export const registrationsQueries: FeaturePart = { operations: registrationsQueryOperations };
