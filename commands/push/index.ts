import type { FeaturePart } from '../../src/feature.ts';
import { pushEvents } from './events.ts';
import { pushCommandOperations } from './operations.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of Web Push: members' subscriptions (app/features/index.ts). */
export const pushCommands: FeaturePart = { events: pushEvents, operations: pushCommandOperations };
