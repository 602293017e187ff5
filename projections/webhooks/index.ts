import type { FeaturePart } from '../../src/feature.ts';
import { webhooksProjection } from './projection.ts';

export * from './collections.ts';

/** The back office's webhooks as read models (the dispatcher's own collections beside them): what they register. */
export const webhooksReadModels: FeaturePart = { projections: () => [webhooksProjection] };
