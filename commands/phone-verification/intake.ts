import type { IntakeKind } from '../../src/intake-kind.ts';

/** NDJSON intake records of phone verification (docs/intake.md) (none yet). */
export const phoneVerificationIntake: IntakeKind[] = [];
