import type { FeaturePart } from '../../src/feature.ts';
import { registrationsEvents } from './events.ts';
import { registrationsCommandOperations } from './operations.ts';
import { registrationsJobs } from './jobs.ts';
import { registrationsIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of auction registrations: what it registers (app/features/index.ts). */
export const registrationsCommands: FeaturePart = {
  events: registrationsEvents,
  operations: registrationsCommandOperations,
  jobs: registrationsJobs,
  intake: registrationsIntake,
};
