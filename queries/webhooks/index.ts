import type { FeaturePart } from '../../src/feature.ts';
import { webhooksQueryOperations } from './operations.ts';

/** The back office's webhooks as it reads them: the HTTP operations they register (app/features/index.ts). */
export const webhooksQueries: FeaturePart = { operations: webhooksQueryOperations };
