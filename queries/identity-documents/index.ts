import type { FeaturePart } from '../../src/feature.ts';
import { identityDocumentsQueryOperations } from './operations.ts';

/** The read side of a member's identity documents: the HTTP operations it registers (app/features/index.ts). */
export const identityDocumentsQueries: FeaturePart = { operations: identityDocumentsQueryOperations };
