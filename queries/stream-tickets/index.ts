import type { FeaturePart } from '../../src/feature.ts';
import { streamTicketOperations } from './operations.ts';

/** Stream tickets (`POST /v1/stream-tickets`): the HTTP operation it registers (app/features/index.ts). */
export const streamTicketsQueries: FeaturePart = { operations: streamTicketOperations };
