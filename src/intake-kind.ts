import type { z } from 'zod';
import type { EventLog } from './ports/event-log.ts';
import type { FileStore } from './ports/files.ts';
import type { CommandResult } from './decider.ts';

/** What an intake record's command may use. */
export interface IntakeDeps {
  log: EventLog;
  /** Where bytes of documents go (records that carry files need it). */
  files?: FileStore;
  /** The folder of the NDJSON file: file paths of records are relative to it. */
  baseDir?: string;
  correlationId?: string;
  /** Look-ups shared by the records of one run (by key), so a run of many records reads each stream once. */
  lookups?: Map<string, Promise<unknown>>;
}

/** At most this many look-ups are kept for a run (then forgotten all at once). */
const MAX_LOOKUPS = 100_000;

/** A look-up remembered for the run (IntakeDeps.lookups), or made each time when the run keeps none. */
export function lookUp<T>(deps: IntakeDeps, key: string, read: () => Promise<T>): Promise<T> {
  if (!deps.lookups) return read();
  let found = deps.lookups.get(key) as Promise<T> | undefined;
  if (!found) {
    found = read();
    remember(deps, key, found);
  }
  return found;
}

/** What a record of the run just stored, for the records after it (a lot's auction, an auction's mode). */
export function remember(deps: IntakeDeps, key: string, value: unknown): void {
  if (!deps.lookups) return;
  if (deps.lookups.size >= MAX_LOOKUPS) deps.lookups.clear();
  deps.lookups.set(key, Promise.resolve(value));
}

/**
 * A kind of NDJSON intake record a feature brings (docs/intake.md): its schema, with `kind` a literal, and
 * the command it runs. A record equal to what its stream already says must append nothing.
 */
export interface IntakeKind<R extends { kind: string } = { kind: string }> {
  kind: R['kind'];
  schema: z.ZodType<R>;
  import(deps: IntakeDeps, record: R): Promise<CommandResult>;
  /** The operator's kind (tenants, keys, applications): never taken from a house's back office. */
  operator?: boolean;
}

/** Marks kinds as the operator's. */
export function operatorKinds(kinds: IntakeKind[]): IntakeKind[] {
  return kinds.map((kind) => ({ ...kind, operator: true }));
}

/** Declares an intake kind with its record type inferred from the schema. */
export function defineIntakeKind<S extends z.ZodType<{ kind: string }>>(
  kind: z.infer<S>['kind'],
  schema: S,
  run: (deps: IntakeDeps, record: z.infer<S>) => Promise<CommandResult>,
): IntakeKind {
  return { kind, schema, import: run } as unknown as IntakeKind;
}

/** What an intake run reports: records read, events appended, records that changed nothing, and the lines refused. */
export interface IntakeReport {
  records: number;
  appended: number;
  unchanged: number;
  /** Last global position appended (for read-your-writes waits). */
  position: number;
  errors: Array<{ line: number; message: string }>;
}

/** Intake for one tenant's back office (over HTTP): its own records only, no operator kinds, bytes inline. */
export type TenantIntake = (lines: AsyncIterable<string> | Iterable<string>, options: { correlationId: string }) => Promise<IntakeReport>;
