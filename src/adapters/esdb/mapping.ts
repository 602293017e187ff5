import type { ExpectedRevision, NewEvent, RecordedEvent } from '../../ports/event-log.ts';
import {
  ANY,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  type AppendExpectedRevision,
  type JSONEventData,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from './client.ts';

/**
 * Translations between the port's shapes and EventStoreDB's.
 *
 * Positions: the port's position is the event's commit position in EventStoreDB's transaction log, a byte
 * offset. Positions therefore grow by the size of what was written in between, not by one per event: they
 * order events and serve as checkpoints, and a difference of two positions is no count of events. Events
 * appended through the gRPC client are written as implicitly committed records, whose commit and prepare
 * positions are both the record's own log position; a position of the port maps back to
 * `{ commit: p, prepare: p }`.
 */

type NumberKind = 'position' | 'revision';

/** A bigint from the client as the port's number; beyond 2^53 - 1 it would silently lose precision, so it throws. */
export function toSafeNumber(value: bigint, kind: NumberKind): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`EventStoreDB ${kind} ${value} is outside 0..Number.MAX_SAFE_INTEGER: the event log port carries it as a number`);
  }
  return Number(value);
}

/** The read position just at a port position (0 = the start of $all). */
export function toReadPosition(position: number): ReadPosition {
  assertCount(position, 'position');
  if (position === 0) return START;
  const p = BigInt(position);
  return { commit: p, prepare: p };
}

export function toPortPosition(position: Position): number {
  return toSafeNumber(position.commit, 'position');
}

export function toClientExpected(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      assertCount(expected, 'revision');
      return BigInt(expected);
  }
}

/** The client's current revision (bigint or 'no_stream') as the port's `actual`. */
export function toPortActual(actual: unknown): number | 'no_stream' {
  if (typeof actual === 'bigint') return actual < 0n ? 'no_stream' : toSafeNumber(actual, 'revision');
  return 'no_stream';
}

/** Whether a stream at `current` (-1 when absent) satisfies the expected revision. */
export function satisfies(expected: ExpectedRevision, current: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === -1;
  if (expected === 'stream_exists') return current >= 0;
  return expected === current;
}

function assertCount(value: number, kind: NumberKind) {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${kind} must be a non-negative integer, got ${value}`);
  }
}

/**
 * Keys the adapter adds to the event's metadata JSON beside the port's metadata (tenant, correlationId):
 * the schema version of `data`, and `$correlationId`, the name EventStoreDB's own `$by_correlation_id`
 * projection and its UI read.
 */
const SCHEMA_VERSION = 'schemaVersion';
const ESDB_CORRELATION = '$correlationId';

export function toEventData(event: NewEvent, id: string): JSONEventData {
  const metadata: Record<string, unknown> = { ...event.metadata, [SCHEMA_VERSION]: event.version };
  if (event.metadata.correlationId !== undefined) metadata[ESDB_CORRELATION] = event.metadata.correlationId;
  return { id, contentType: 'application/json', type: event.type, data: event.data, metadata };
}

/** System events ($metadata, $>, $statsCollected, …) have types starting with `$`; the port never carries them. */
export function isSystemEvent(resolved: ResolvedEvent): boolean {
  return resolved.event === undefined || resolved.event.type.startsWith('$');
}

/**
 * A recorded event as the port's. Its position is the event's commit position, which the server sends on
 * $all and, from EventStoreDB 22.6 on, on stream reads too.
 */
export function toRecorded(resolved: ResolvedEvent): RecordedEvent {
  const event = resolved.event;
  if (!event) throw new Error('EventStoreDB returned a link without its event (links are not resolved by this log)');
  if (!event.isJson || !isPlainObject(event.data)) {
    throw new Error(`event ${event.id} (${event.type}) in ${event.streamId} is not a JSON object; this log holds JSON events only`);
  }
  const {
    [SCHEMA_VERSION]: version,
    [ESDB_CORRELATION]: _correlation,
    ...metadata
  } = isPlainObject(event.metadata) ? event.metadata : ({} as Record<string, unknown>);
  const commit = event.position?.commit ?? resolved.commitPosition;
  // A server before 22.6 sends no position on stream reads (the client then reads the default, 0):
  // no event of this log ever sits at 0, where the transaction log starts with its own records.
  if (commit === undefined || commit === 0n) {
    throw new Error('EventStoreDB sent no event position: the EventStoreDB adapter needs EventStoreDB 22.6 or later');
  }
  return {
    type: event.type,
    version: typeof version === 'number' ? version : 1,
    data: event.data,
    metadata: metadata as unknown as RecordedEvent['metadata'],
    streamId: event.streamId,
    revision: toSafeNumber(event.revision, 'revision'),
    position: toSafeNumber(commit, 'position'),
    created: event.created.toISOString(),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
