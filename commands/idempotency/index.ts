import type { FeaturePart } from '../../src/feature.ts';
import { idempotencyEvents } from './events.ts';

export * from './events.ts';
export * from './shared.ts';

/** Idempotency-Key of any operation: the events it registers (app/features/index.ts). */
export const idempotencyCommands: FeaturePart = { events: idempotencyEvents };
