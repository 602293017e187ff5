import type { FeaturePart } from '../../src/feature.ts';
import { profileQueryOperations } from './operations.ts';

/** The read side of the signed-in member's profile: the HTTP operations it registers (app/features/index.ts). */
export const profileQueries: FeaturePart = { operations: profileQueryOperations };
