import type { FeaturePart } from '../../src/feature.ts';
import { membersProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of member accounts: what they register (app/features/index.ts). */
export const membersReadModels: FeaturePart = { projections: () => [membersProjection] };

/** The name of the projection of member accounts: what a wait for that read model names (the credential checks). */
export const MEMBERS_PROJECTION = membersProjection.name;
