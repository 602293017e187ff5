import type { IntakeKind } from '../../src/intake-kind.ts';

/** NDJSON intake records of invoices (docs/intake.md) (none yet). */
export const invoicesIntake: IntakeKind[] = [];
