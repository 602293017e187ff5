import type { FeaturePart } from '../../src/feature.ts';
import { profileProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of bidders' profiles: what they register (app/features/index.ts). */
export const profileReadModels: FeaturePart = { projections: () => [profileProjection] };
