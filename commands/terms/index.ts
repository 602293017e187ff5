import type { FeaturePart } from '../../src/feature.ts';
import { termsEvents } from './events.ts';
import { termsCommandOperations } from './operations.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of auction terms acceptance: what it registers (app/features/index.ts). */
export const termsCommands: FeaturePart = { events: termsEvents, operations: termsCommandOperations };
