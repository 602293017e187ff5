import type { FeaturePart } from '../../src/feature.ts';
import { biddingCommandOperations } from './operations.ts';
import { biddingJobs } from './jobs.ts';
import { biddingReactors } from './reactors.ts';

export * from './decide.ts';

/** The write side of timed bidding: what it registers (app/features/index.ts). */
export const biddingCommands: FeaturePart = {
  operations: biddingCommandOperations,
  projections: biddingReactors,
  jobs: biddingJobs,
};
