import type { FeaturePart } from '../../src/feature.ts';
import { translationsProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of interface dictionaries: what they register (app/features/index.ts). */
export const translationsReadModels: FeaturePart = { projections: () => [translationsProjection] };
