import type { FeaturePart } from '../../src/feature.ts';
import { lotEvents } from './events.ts';

export * from './events.ts';

/** A lot's stream, written by catalogue intake and timed bidding: the events it registers (app/features/index.ts). */
export const lotsCommands: FeaturePart = { events: lotEvents };
