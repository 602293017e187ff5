import type { IntakeKind } from '../../src/intake-kind.ts';

/** NDJSON intake records of members (docs/intake.md) (none yet). */
export const membersIntake: IntakeKind[] = [];
