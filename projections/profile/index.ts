import type { FeaturePart } from '../../src/feature.ts';
import { profilesProjection } from './projection.ts';

export * from './projection.ts';

/** The read models of bidders' profiles: what they register (app/features/index.ts). */
export const profilesReadModels: FeaturePart = { projections: () => [profilesProjection] };
