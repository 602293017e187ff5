import type { FeaturePart } from '../../src/feature.ts';
import { auctionStreamOperations } from './operations.ts';

/** An auction's live stream (`GET /v1/auctions/{id}/stream`): the HTTP operation it registers (app/features/index.ts). */
export const auctionStreamQueries: FeaturePart = { operations: auctionStreamOperations };
