import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { EventLog } from './ports/event-log.ts';
import type { CommandResult } from './command-runner.ts';
import { AppError } from './errors.ts';
import type { IntakeKind } from './intake-kind.ts';
import { importRecord, intakeRecord, type ImportOptions, type ImportReport } from '../commands/catalogue/import.ts';
import { membersIntake } from '../commands/members/intake.ts';
import { profileIntake } from '../commands/profile/intake.ts';
import { phoneVerificationIntake } from '../commands/phone-verification/intake.ts';
import { registrationsIntake } from '../commands/registrations/intake.ts';
import { identityDocumentsIntake } from '../commands/identity-documents/intake.ts';
import { invoicesIntake } from '../commands/invoices/intake.ts';
import { notificationsIntake } from '../commands/notifications/intake.ts';

/**
 * The intake kinds features bring beside the catalogue's own (commands/catalogue/import.ts). Each feature's
 * `commands/<feature>/intake.ts` exports its kinds; they are listed here once.
 */
export const FEATURE_INTAKE: IntakeKind[] = [...membersIntake, ...profileIntake, ...phoneVerificationIntake, ...registrationsIntake, ...identityDocumentsIntake, ...invoicesIntake, ...notificationsIntake];

const featureKinds = new Map(FEATURE_INTAKE.map((k) => [k.kind, k]));

/** Validates and applies one record of any kind (catalogue or feature). */
export async function importAnyRecord(log: EventLog, raw: unknown, options: ImportOptions = {}): Promise<CommandResult> {
  const feature = featureKinds.get((raw as { kind?: unknown } | null)?.kind as string);
  if (feature) return feature.import({ log, ...options }, feature.schema.parse(raw));
  return importRecord(log, intakeRecord.parse(raw), options);
}

/** Imports NDJSON lines; a bad line is reported with its number and skipped, the others go on. */
export async function importLines(
  log: EventLog,
  lines: AsyncIterable<string> | Iterable<string>,
  onProgress?: (report: ImportReport) => void,
  options: Omit<ImportOptions, 'correlationId'> = {},
): Promise<ImportReport> {
  const report: ImportReport = { records: 0, appended: 0, unchanged: 0, position: 0, errors: [] };
  const correlationId = `import-${randomUUID()}`;
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    if (!line.trim()) continue;
    report.records += 1;
    try {
      const result = await importAnyRecord(log, JSON.parse(line), { ...options, correlationId });
      if (result.events.length) {
        report.appended += result.events.length;
        report.position = result.position;
      } else report.unchanged += 1;
    } catch (error) {
      const message =
        error instanceof z.ZodError
          ? error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
          : error instanceof AppError || error instanceof Error
            ? error.message
            : String(error);
      report.errors.push({ line: lineNumber, message });
    }
    if (onProgress && report.records % 5000 === 0) onProgress(report);
  }
  return report;
}
