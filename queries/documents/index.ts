import type { FeaturePart } from '../../src/feature.ts';
import { documentsQueryOperations } from './operations.ts';

/** The read side of auction documents and lot documents: the HTTP operations it registers (app/features/index.ts). */
export const documentsQueries: FeaturePart = { operations: documentsQueryOperations };
