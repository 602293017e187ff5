import type { FeaturePart } from '../../src/feature.ts';
import { memberStreamOperations } from './operations.ts';

/** The member's own stream (`GET /v1/me/stream`): the HTTP operation it registers (app/features/index.ts). */
export const memberStreamQueries: FeaturePart = { operations: memberStreamOperations };
