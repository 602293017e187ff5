import type { FeaturePart } from '../../src/feature.ts';
import { watchlistProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of watchlists: what they register (app/features/index.ts). */
export const watchlistReadModels: FeaturePart = { projections: () => [watchlistProjection] };
