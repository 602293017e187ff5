import type { FeaturePart } from '../../src/feature.ts';
import { costsProjection } from './projection.ts';

export * from './collections.ts';

/** The read model of the house's cost rules: what it registers (app/features/index.ts). */
export const costsReadModels: FeaturePart = { projections: () => [costsProjection] };
