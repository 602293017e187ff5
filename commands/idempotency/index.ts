import type { FeaturePart } from '../../src/feature.ts';
import { idempotencyEvents } from './events.ts';

export * from './events.ts';
export * from './decide.ts';
export * from './rules.ts';

/** Idempotency-Key of any operation: the events it registers (app/features/index.ts). */
export const idempotencyCommands: FeaturePart = { events: idempotencyEvents };
