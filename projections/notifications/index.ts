import type { FeaturePart } from '../../src/feature.ts';
import { notificationsProjection, notificationRemindersReactor } from './projection.ts';

export * from './collections.ts';

/**
 * The read model of reminder subscriptions, and the reactor that plans reminders from it: what they register
 * (app/features/index.ts). The reactor comes second: caught up one after another, it waits for the projection.
 */
export const notificationsReadModels: FeaturePart = {
  projections: (deps) => [notificationsProjection, notificationRemindersReactor(deps)],
};
