import type { IntakeKind } from '../../src/intake-kind.ts';

/** NDJSON intake records of profile (docs/intake.md) (none yet). */
export const profileIntake: IntakeKind[] = [];
