import type { FeaturePart } from '../../src/feature.ts';
import { documentEvents } from './events.ts';
import { documentsIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of auction documents and condition reports: what it registers (app/features/index.ts). Its records come by catalogue intake. */
export const documentsCommands: FeaturePart = { events: documentEvents, intake: documentsIntake };
