import type { FeaturePart } from '../../src/feature.ts';
import { identityDocumentsEvents } from './events.ts';
import { identityDocumentsCommandOperations } from './operations.ts';
import { identityDocumentsReactors } from './reactors.ts';
import { identityDocumentsJobs } from './jobs.ts';
import { identityDocumentsIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of members' identity documents: what it registers (app/features/index.ts). */
export const identityDocumentsCommands: FeaturePart = {
  events: identityDocumentsEvents,
  operations: identityDocumentsCommandOperations,
  projections: identityDocumentsReactors,
  jobs: identityDocumentsJobs,
  intake: identityDocumentsIntake,
};
