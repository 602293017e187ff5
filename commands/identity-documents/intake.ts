import type { IntakeKind } from '../../src/intake-kind.ts';

/** NDJSON intake records of identity documents (docs/intake.md) (none yet). */
export const identityDocumentsIntake: IntakeKind[] = [];
