import type { FeaturePart } from '../../src/feature.ts';
import { watchlistEvents } from './events.ts';
import { watchlistCommandOperations } from './operations.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of members' watchlists: what it registers (app/features/index.ts). */
export const watchlistCommands: FeaturePart = { events: watchlistEvents, operations: watchlistCommandOperations };
