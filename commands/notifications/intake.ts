import type { IntakeKind } from '../../src/intake-kind.ts';

/** NDJSON intake records of notifications (docs/intake.md) (none yet). */
export const notificationsIntake: IntakeKind[] = [];
