import type { FeaturePart } from '../../src/feature.ts';
import { bidsProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of bid histories: what they register (app/features/index.ts). */
export const bidsReadModels: FeaturePart = { projections: () => [bidsProjection] };
