import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { EventLog } from '../../src/ports/event-log.ts';
import type { CommandResult } from '../../src/command-runner.ts';
import { AppError } from '../../src/errors.ts';
import type { IntakeKind } from '../../src/intake-kind.ts';
import { importRecord, intakeRecord, type ImportOptions, type ImportReport } from '../../commands/catalogue/import.ts';
import { service } from './index.ts';

/**
 * The intake kinds features bring beside the catalogue's own (commands/catalogue/import.ts): each feature's
 * `commands/<feature>/index.ts` registers its kinds (app/features/index.ts).
 */
export const FEATURE_INTAKE: readonly IntakeKind[] = service.intake;

const featureKinds = new Map(FEATURE_INTAKE.map((k) => [k.kind, k]));
// A feature's kind would silently take a catalogue record's place.
for (const option of intakeRecord.options)
  if (featureKinds.has(option.shape.kind.value)) throw new Error(`intake kind ${option.shape.kind.value} is the catalogue's and a feature's`);

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
