import type { FeaturePart } from '../../src/feature.ts';
import { identityDocumentsProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of members' identity documents: what they register (app/features/index.ts). */
export const identityDocumentsReadModels: FeaturePart = { projections: () => [identityDocumentsProjection] };
