import type { FeaturePart } from '../../src/feature.ts';
import { backofficeIntakeEvents } from './events.ts';
import { backofficeIntakeOperations } from './operations.ts';

export * from './events.ts';
export * from './decide.ts';

/** Intake over HTTP for a house's back office: what it registers (app/features/index.ts). */
export const backofficeIntakeCommands: FeaturePart = { events: backofficeIntakeEvents, operations: backofficeIntakeOperations };
