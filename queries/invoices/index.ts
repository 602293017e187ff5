import type { FeaturePart } from '../../src/feature.ts';
import { invoicesQueryOperations } from './operations.ts';

/** The read side of a member's invoices and their PDFs: the HTTP operations it registers (app/features/index.ts). */
export const invoicesQueries: FeaturePart = { operations: invoicesQueryOperations };
