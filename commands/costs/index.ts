import type { FeaturePart } from '../../src/feature.ts';
import { costsEvents } from './events.ts';
import { costsIntake } from './intake.ts';

export * from './events.ts';

/** The write side of the house's cost rules: what it registers (app/features/index.ts). Its records come by intake. */
export const costsCommands: FeaturePart = { events: costsEvents, intake: costsIntake };
