/**
 * Event log port, shaped after what @eventstore/db-client offers:
 * - appendToStream(stream, events, { expectedRevision }) with 'any' | 'no_stream' | 'stream_exists' | a revision;
 * - readStream(stream) returning the stream's events in revision order (revision 0 first);
 * - a subscription to $all from a commit position, catching up then going live.
 *
 * Revisions and positions are plain numbers (int53) rather than bigint: the embedded log's positions are
 * SQLite rowids and an EventStoreDB adapter maps its commit position into the same monotonic number.
 */

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export interface EventMetadata {
  /** Every event carries its tenant. Operator-level events use the reserved tenant `_system`. */
  tenant: string;
  /** Correlation of the request or import that caused the event. */
  correlationId?: string;
}

export interface NewEvent {
  type: string;
  /** Schema version of `data` (events are versioned; readers upcast older versions). */
  version: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

export interface RecordedEvent extends NewEvent {
  streamId: string;
  /** 0-based revision of this event within its stream. */
  revision: number;
  /** Global, strictly increasing position in the whole log ($all). */
  position: number;
  /** When it was appended (RFC 3339, UTC). */
  created: string;
}

export interface AppendResult {
  /** Revision of the last appended event (or the current one when nothing was appended). */
  nextExpectedRevision: number;
  /** Global position of the last appended event (or the log's head when nothing was appended). */
  position: number;
}

export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Wrong expected version on ${streamId}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedVersionError';
  }
}

export interface ReadAllOptions {
  /** Exclusive lower bound: events with position > fromPosition are returned. 0 = from the start. */
  fromPosition: number;
  maxCount: number;
}

/** A read of $all that returns only events of the given types, and how far it read. */
export interface ReadTypesResult {
  events: RecordedEvent[];
  /**
   * The position the read covered: every event up to it that is not returned is of another type. A
   * projection's checkpoint may move to it (it is at least the last returned event's position).
   */
  position: number;
}

/**
 * An event as the log stores it, for a reader that passes its data on as it is (the back office's feed): the data
 * unparsed, and of its metadata the tenant alone.
 */
export interface StoredEvent {
  streamId: string;
  revision: number;
  position: number;
  type: string;
  version: number;
  created: string;
  /** `metadata.tenant` ('' when it has none). */
  tenant: string;
  /** The data as the append stored it: the UTF-8 bytes of the text `JSON.stringify` gave (no spaces, keys in their order). */
  dataJson: Buffer;
}

/** A page of stored events, and how far the read covered (as ReadTypesResult's `position`). */
export interface StoredEventsResult {
  events: StoredEvent[];
  position: number;
}

export interface Subscription extends AsyncIterable<RecordedEvent[]> {
  /** Stops the subscription; a pending iteration resolves with done. */
  unsubscribe(): Promise<void>;
}

export interface SubscribeOptions {
  /** Exclusive: delivery starts after this position (0 = from the start). */
  fromPosition: number;
  /** Largest batch handed to the consumer at once (back-pressure: the next batch waits for the consumer). */
  batchSize?: number;
}

export interface EventLog {
  appendToStream(streamId: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult>;
  /**
   * Optional: an append decided under the log's write lock, so that no writer (of any process) appends to the
   * stream between the decision's read and its write, and it never meets a stale revision. `decide` is called
   * once, synchronously, inside the appending transaction, with the stream's events from `fromRevision` on (the
   * caller holds the ones before), and answers the events to append (none: nothing is appended). A throw from it
   * fails this append alone, with nothing written. The result is as appendToStream's. Without it, callers decide
   * on what they read and append with an expected revision, deciding again after a conflict.
   */
  appendDecided?(streamId: string, fromRevision: number, decide: (newer: RecordedEvent[]) => NewEvent[]): Promise<AppendResult>;
  /** Events of one stream in revision order; an absent stream reads as []. */
  readStream(streamId: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]>;
  /** A page of $all, used by catch-up and by tools. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Optional: a page of $all holding only the events of these types (a server-side filter, as EventStoreDB
   * filters $all by event type), so a rebuild neither carries nor parses the others. Without it, readers
   * use readAll and skip the other types themselves.
   */
  readTypes?(options: ReadAllOptions & { types: readonly string[] }): Promise<ReadTypesResult>;
  /**
   * Optional: a page of $all as stored (readAll's, or readTypes' when `types` is given), its data left as text, so
   * a reader that only passes it on neither parses nor serialises it. Without it, readers use readAll or readTypes.
   */
  readStored?(options: ReadAllOptions & { types?: readonly string[] }): Promise<StoredEventsResult>;
  /** Position of the newest event (0 when the log is empty). */
  headPosition(): Promise<number>;
  /**
   * Subscribe to $all after a position: delivers batches of events in position order, first catching up
   * with what is stored, then live. Pull-based: the next batch is read only when the consumer asks for it.
   */
  subscribeToAll(options: SubscribeOptions): Subscription;
  close(): Promise<void>;
}
