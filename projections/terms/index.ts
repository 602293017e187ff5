import type { FeaturePart } from '../../src/feature.ts';
import { termsProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of accepted auction terms: what they register (app/features/index.ts). */
export const termsReadModels: FeaturePart = { projections: () => [termsProjection] };
