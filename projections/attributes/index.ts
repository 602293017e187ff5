import type { FeaturePart } from '../../src/feature.ts';
import { attributesProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of the attribute values of lots: what they register (app/features/index.ts). */
export const attributesReadModels: FeaturePart = { projections: () => [attributesProjection] };
