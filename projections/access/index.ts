import type { FeaturePart } from '../../src/feature.ts';
import { accessProjection } from './projection.ts';

export * from './collections.ts';

/**
 * The read models of tenants, applications and API keys (what credentials are checked against): what they register (app/features/index.ts).
 */
export const accessReadModels: FeaturePart = { projections: () => [accessProjection] };
