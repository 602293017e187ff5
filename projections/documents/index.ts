import type { FeaturePart } from '../../src/feature.ts';
import { documentsProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of auction documents and lot documents: what they register (app/features/index.ts). */
export const documentsReadModels: FeaturePart = { projections: () => [documentsProjection] };
