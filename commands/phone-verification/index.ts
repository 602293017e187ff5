import type { FeaturePart } from '../../src/feature.ts';
import { phoneVerificationEvents } from './events.ts';
import { phoneVerificationCommandOperations } from './operations.ts';
import { phoneVerificationReactors } from './reactors.ts';
import { phoneVerificationJobs } from './jobs.ts';
import { phoneVerificationIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of phone verification: what it registers (app/features/index.ts). */
export const phoneVerificationCommands: FeaturePart = {
  events: phoneVerificationEvents,
  operations: phoneVerificationCommandOperations,
  projections: phoneVerificationReactors,
  jobs: phoneVerificationJobs,
  intake: phoneVerificationIntake,
};
