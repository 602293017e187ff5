import type { IntakeKind } from '../../src/intake-kind.ts';

/** NDJSON intake records of registrations (docs/intake.md) (none yet). */
export const registrationsIntake: IntakeKind[] = [];
