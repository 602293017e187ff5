import type { FeaturePart } from '../../src/feature.ts';
import { phoneVerificationEvents } from './events.ts';
import { phoneVerificationCommandOperations } from './operations.ts';
import { phoneCodeReactor } from './delivery.ts';
import { phoneVerificationJobs } from './jobs.ts';
import { phoneVerificationIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of phone verification: what it registers (app/features/index.ts). */
export const phoneVerificationCommands: FeaturePart = {
  events: phoneVerificationEvents,
  operations: phoneVerificationCommandOperations,
  projections: (deps) => [phoneCodeReactor(deps)],
  jobs: phoneVerificationJobs,
  intake: phoneVerificationIntake,
};
