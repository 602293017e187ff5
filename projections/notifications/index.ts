import type { FeaturePart } from '../../src/feature.ts';
import { notificationsProjection } from './projection.ts';

export * from './collections.ts';

/**
 * The read model of reminder subscriptions: what it registers (app/features/index.ts). The reactor that plans
 * reminders from it (commands/notifications/reactors.ts) is registered after it: caught up one after another,
 * it waits for the projection.
 */
export const notificationsReadModels: FeaturePart = { projections: () => [notificationsProjection] };
