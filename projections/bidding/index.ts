import type { FeaturePart } from '../../src/feature.ts';
import { biddingProjection } from './projection.ts';

export * from './collections.ts';

/** The read models of timed bidding: what they register (app/features/index.ts). Its reactor (closes and mails) is commands/bidding's. */
export const biddingReadModels: FeaturePart = { projections: () => [biddingProjection] };
