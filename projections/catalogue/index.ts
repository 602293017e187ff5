import type { FeaturePart } from '../../src/feature.ts';
import { catalogueProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of auctions, categories and lots: what they register (app/features/index.ts). */
export const catalogueReadModels: FeaturePart = { projections: () => [catalogueProjection] };
