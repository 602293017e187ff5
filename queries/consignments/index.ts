import type { FeaturePart } from '../../src/feature.ts';
import { consignmentsQueryOperations } from './operations.ts';

/** The read side of a consigner's lots and auctions: the HTTP operations it registers (app/features/index.ts). */
export const consignmentsQueries: FeaturePart = { operations: consignmentsQueryOperations };
