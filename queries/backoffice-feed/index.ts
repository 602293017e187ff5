import type { FeaturePart } from '../../src/feature.ts';
import { backofficeFeedOperations } from './operations.ts';

/** The back office's event feed (BACKOFFICE.md "The event feed"): the HTTP operations it registers (app/features/index.ts). */
export const backofficeFeedQueries: FeaturePart = { operations: backofficeFeedOperations };
