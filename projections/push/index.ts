import type { FeaturePart } from '../../src/feature.ts';
import { pushSubscriptionsProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of Web Push: what they register (app/features/index.ts). */
export const pushReadModels: FeaturePart = { projections: () => [pushSubscriptionsProjection] };
