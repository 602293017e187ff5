import type { FeaturePart } from '../../src/feature.ts';
import { accessEvents } from './events.ts';
import { accessIntake } from './intake.ts';

export * from './events.ts';
export * from './decide.ts';

/** The write side of access (tenants, applications, Api-Keys): what it registers (app/features/index.ts). Its records come by catalogue intake. */
export const accessCommands: FeaturePart = { events: accessEvents, intake: accessIntake };
