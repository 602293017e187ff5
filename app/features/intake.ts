import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { EventLog } from '../../src/ports/event-log.ts';
import type { FileStore } from '../../src/ports/files.ts';
import type { CommandResult } from '../../src/decider.ts';
import { AppError, ValidationError } from '../../src/errors.ts';
import { textErrors } from '../../src/text/text-errors.ts';
import type { IntakeKind, IntakeReport } from '../../src/intake-kind.ts';
import type { AccessRecord } from '../../commands/access/intake.ts';
import type { CatalogueRecord } from '../../commands/catalogue/intake.ts';
import type { DocumentRecord } from '../../commands/documents/intake.ts';
import type { TranslationsRecord } from '../../commands/translations/intake.ts';
import type { MemberRecord, MemberRemovedRecord } from '../../commands/members/intake.ts';
import type { CostRulesRecord } from '../../commands/costs/intake.ts';
import { service } from './index.ts';

/** Every NDJSON intake kind (docs/intake.md): each feature's `commands/<feature>/intake.ts`, registered by its index.ts. */
export const INTAKE_KINDS: readonly IntakeKind[] = service.intake;

const kinds = new Map(INTAKE_KINDS.map((k) => [k.kind, k]));
/** Any record, validated by its kind's schema (an unknown kind fails naming the known ones). */
const anyRecord = z.discriminatedUnion(
  'kind',
  INTAKE_KINDS.map((k) => k.schema) as unknown as [z.ZodObject<{ kind: z.ZodLiteral<string> }>],
);

/** The records the demo seeder and `npm run generate` write (the catalogue, its houses and keys, its cost rules, documents, translations and members). */
export type IntakeRecord =
  AccessRecord | CatalogueRecord | CostRulesRecord | DocumentRecord | TranslationsRecord | MemberRecord | MemberRemovedRecord;

export interface ImportOptions {
  correlationId?: string;
  /** Where document bytes go (document and condition-report records need it). */
  files?: FileStore;
  /** The folder of the NDJSON file: document `file` paths are relative to it. */
  baseDir?: string;
  /** Look-ups shared by the records of one run (importLines makes one per run). */
  lookups?: Map<string, Promise<unknown>>;
}

export type ImportReport = IntakeReport;

/** Why a record may not come from one tenant's back office (null: it may): another tenant, an operator's kind, a file path. */
function backOfficeRefusal(raw: unknown, tenant: string): string | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const record = raw as { kind?: unknown; tenant?: unknown; file?: unknown };
  const kind = kinds.get(record.kind as string);
  if (kind?.operator) return `kind: ${String(record.kind)} is the operator's; a back office cannot send it`;
  if (kind && record.tenant !== tenant) return `tenant: must be the key's own tenant (${tenant})`;
  if (record.file !== undefined) return 'file: paths are not taken over HTTP; send the bytes as base64';
  return null;
}

/** Applies one record, already of its kind's type, as its command; returns the events it appended and the position. */
export async function importRecord(log: EventLog, record: IntakeRecord, options: ImportOptions = {}): Promise<CommandResult> {
  const kind = kinds.get(record.kind);
  if (!kind) throw new Error(`no intake kind ${record.kind}`);
  return kind.import({ log, ...options }, record);
}

/**
 * Validates and applies one record of any kind. A record whose texts hold what no text may (src/text/
 * allowed-characters.ts) is refused first, naming each field (`texts.en.title: must not hold ...`).
 */
export async function importAnyRecord(log: EventLog, raw: unknown, options: ImportOptions = {}): Promise<CommandResult> {
  const kind = kinds.get((raw as { kind?: unknown } | null)?.kind as string);
  const badTexts = textErrors(kind?.schema, raw);
  if (badTexts.length)
    throw new ValidationError(badTexts.map((e) => `${e.field}: ${e.message}`).join('; '), badTexts, { code: 'text-invalid' });
  if (kind) return kind.import({ log, ...options }, kind.schema.parse(raw));
  anyRecord.parse(raw);
  throw new Error('no intake kind');
}

/** Imports NDJSON lines; a bad line is reported with its number and skipped, the others go on. */
export async function importLines(
  log: EventLog,
  lines: AsyncIterable<string> | Iterable<string>,
  onProgress?: (report: ImportReport) => void,
  options: ImportOptions & {
    /** Records from this tenant's back office only (over HTTP): others are line errors. */
    tenant?: string;
  } = {},
): Promise<ImportReport> {
  const report: ImportReport = { records: 0, appended: 0, unchanged: 0, position: 0, errors: [] };
  const { tenant, ...importOptions } = options;
  const correlationId = options.correlationId ?? `import-${randomUUID()}`;
  // Shared by the run's records: each kind keeps what it looks up current (commands/catalogue/intake.ts).
  const lookups = new Map<string, Promise<unknown>>();
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    if (!line.trim()) continue;
    report.records += 1;
    try {
      const raw: unknown = JSON.parse(line);
      const refusal = tenant === undefined ? null : backOfficeRefusal(raw, tenant);
      if (refusal) throw new Error(refusal);
      const result = await importAnyRecord(log, raw, { ...importOptions, correlationId, lookups });
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
