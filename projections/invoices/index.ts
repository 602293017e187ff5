import type { FeaturePart } from '../../src/feature.ts';
import { invoicesProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of invoices and price lists: what they register (app/features/index.ts). */
export const invoicesReadModels: FeaturePart = { projections: () => [invoicesProjection] };
