import type { FeaturePart } from '../../src/feature.ts';
import { registrationsProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of auction registrations: what they register (app/features/index.ts). */
export const registrationsReadModels: FeaturePart = { projections: () => [registrationsProjection] };
