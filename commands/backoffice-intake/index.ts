import type { FeaturePart } from '../../src/feature.ts';
import { backofficeIntakeOperations } from './operations.ts';

/** Intake over HTTP for a house's back office: what it registers (app/features/index.ts); its Idempotency-Key is the core's (src/idempotency). */
export const backofficeIntakeCommands: FeaturePart = { operations: backofficeIntakeOperations };
