import type { FeaturePart } from '../../src/feature.ts';
import { profileEvents } from './events.ts';
import { profileCommandOperations } from './operations.ts';
import { profileReactors } from './reactors.ts';
import { profileJobs } from './jobs.ts';
import { profileIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of bidders' profiles and VAT checks: what it registers (app/features/index.ts). */
export const profileCommands: FeaturePart = {
  events: profileEvents,
  operations: profileCommandOperations,
  projections: profileReactors,
  jobs: profileJobs,
  intake: profileIntake,
};
