import type { FeaturePart } from '../../src/feature.ts';
import { notificationsEvents } from './events.ts';
import { notificationsCommandOperations } from './operations.ts';
import { notificationsReactors } from './reactors.ts';
import { notificationsJobs } from './jobs.ts';
import { notificationsIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/**
 * The write side of lot-end reminders: what it registers (app/features/index.ts). Its reactor waits for the
 * subscriptions read model, so projections/notifications comes before it in the feature's parts.
 */
export const notificationsCommands: FeaturePart = {
  events: notificationsEvents,
  operations: notificationsCommandOperations,
  projections: notificationsReactors,
  jobs: notificationsJobs,
  intake: notificationsIntake,
};
