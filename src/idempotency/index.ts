import type { FeaturePart } from '../feature.ts';
import { idempotencyEvents } from './events.ts';

export * from './events.ts';
export * from './decide.ts';
export * from './once-for-key.ts';

/** Idempotency-Key of any operation, a core service: the events it registers (app/features/index.ts). */
export const idempotencyPart: FeaturePart = { events: idempotencyEvents };
