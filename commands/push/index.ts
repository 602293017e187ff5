import type { FeaturePart } from '../../src/feature.ts';
import { pushEvents } from './events.ts';
import { pushCommandOperations } from './operations.ts';
import { pushReactors } from './reactors.ts';
import { pushJobs } from './jobs.ts';

export * from './events.ts';
export * from './decide.ts';

/**
 * The write side of Web Push: members' subscriptions, and the pushes of timed bidding and push reminders
 * (app/features/index.ts). Its jobs read the subscriptions read model, registered before it in the feature's parts.
 */
export const pushCommands: FeaturePart = {
  events: pushEvents,
  operations: pushCommandOperations,
  projections: pushReactors,
  jobs: pushJobs,
};
