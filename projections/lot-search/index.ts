import type { FeaturePart } from '../../src/feature.ts';
import { lotSearchProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of the lot search index: what they register (app/features/index.ts). */
export const lotSearchReadModels: FeaturePart = { projections: () => [lotSearchProjection] };
