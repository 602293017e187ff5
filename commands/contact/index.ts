import type { FeaturePart } from '../../src/feature.ts';
import { contactEvents } from './events.ts';
import { contactCommandOperations } from './operations.ts';
import { contactReactors } from './reactors.ts';
import { contactJobs } from './jobs.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of the contact form: what it registers (app/features/index.ts). */
export const contactCommands: FeaturePart = {
  events: contactEvents,
  operations: contactCommandOperations,
  projections: contactReactors,
  jobs: contactJobs,
};
