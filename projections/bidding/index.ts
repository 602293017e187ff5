import type { FeaturePart } from '../../src/feature.ts';
import { biddingProjection } from './projection.ts';
import { biddingReactor } from './reactor.ts';

export * from './collections.ts';

/** The read models of timed bidding and its reactor (closes and mails): what they register (app/features/index.ts). */
export const biddingReadModels: FeaturePart = { projections: (deps) => [biddingProjection, biddingReactor(deps)] };
