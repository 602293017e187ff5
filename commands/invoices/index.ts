import type { FeaturePart } from '../../src/feature.ts';
import { invoicesEvents } from './events.ts';
import { invoicesCommandOperations } from './operations.ts';
import { invoicesJobs } from './jobs.ts';
import { invoicesIntake } from './intake.ts';
import { invoicesReactors } from './reactors.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of invoices and the price list: what it registers (app/features/index.ts). */
export const invoicesCommands: FeaturePart = {
  events: invoicesEvents,
  operations: invoicesCommandOperations,
  projections: invoicesReactors,
  jobs: invoicesJobs,
  intake: invoicesIntake,
};
