import type { FeaturePart } from '../../src/feature.ts';
import { webhooksProjection } from './projection.ts';

export * from './collections.ts';

/** The back office's webhooks as read models: what they register (their deliveries' state is commands/webhooks/collections.ts). */
export const webhooksReadModels: FeaturePart = { projections: () => [webhooksProjection] };
