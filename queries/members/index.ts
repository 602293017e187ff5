import type { FeaturePart } from '../../src/feature.ts';
import { membersQueryOperations } from './operations.ts';

/** The read side of email availability: the HTTP operations it registers (app/features/index.ts). */
export const membersQueries: FeaturePart = { operations: membersQueryOperations };
