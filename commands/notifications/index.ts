import type { FeaturePart } from '../../src/feature.ts';
import { notificationsEvents } from './events.ts';
import { notificationsCommandOperations } from './operations.ts';
import { notificationsJobs } from './jobs.ts';
import { notificationsIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/**
 * The write side of lot-end reminders: what it registers (app/features/index.ts). Its reactor, which needs the subscriptions read model, is in projections/notifications.
 */
export const notificationsCommands: FeaturePart = {
  events: notificationsEvents,
  operations: notificationsCommandOperations,
  jobs: notificationsJobs,
  intake: notificationsIntake,
};
