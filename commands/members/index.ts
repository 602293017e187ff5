import type { FeaturePart } from '../../src/feature.ts';
import { memberEvents } from './events.ts';
import { membersCommandOperations } from './operations.ts';
import { membersReactors } from './reactors.ts';
import { membersJobs } from './jobs.ts';
import { membersIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of bidders' accounts: what it registers (app/features/index.ts). */
export const membersCommands: FeaturePart = {
  events: memberEvents,
  operations: membersCommandOperations,
  projections: membersReactors,
  jobs: membersJobs,
  intake: membersIntake,
};
