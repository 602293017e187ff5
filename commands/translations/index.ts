import type { FeaturePart } from '../../src/feature.ts';
import { translationEvents } from './events.ts';
import { translationsIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of the interface dictionary: what it registers (app/features/index.ts). Its records come by catalogue intake. */
export const translationsCommands: FeaturePart = { events: translationEvents, intake: translationsIntake };
