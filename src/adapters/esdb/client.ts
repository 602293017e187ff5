/**
 * The one file that imports the EventStoreDB client package (`@eventstore/db-client` 6.2).
 *
 * Everything else in `src/adapters/esdb/` uses only what this file exports: the narrow `EsdbClient`
 * interface below (the five calls the event log makes), the constants and the filter it passes, and the
 * error classes it recognises. The real client satisfies `EsdbClient` as it is, with no wrapper, so the
 * adapter runs the same code against the real client and against the in-memory fake used in the tests
 * (test/support/fake-esdb-client.ts).
 *
 * Moving to the renamed successor `@kurrent/kurrentdb-client` is a change to this file only: import from
 * `@kurrent/kurrentdb-client`, and use `KurrentDBClient` where this file uses `EventStoreDBClient` (its
 * constants, filters, error classes and event shapes keep their names). The connection string scheme
 * becomes `kurrentdb://` (check the client's docs for whether `esdb://` is still accepted).
 */
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
  excludeSystemEvents,
} from '@eventstore/db-client';
import type {
  AllStreamResolvedEvent,
  AppendExpectedRevision,
  AppendResult,
  Direction,
  Filter,
  JSONEventData,
  Position,
  ReadPosition,
  ReadRevision,
  ResolvedEvent,
} from '@eventstore/db-client';

export { ANY, BACKWARDS, END, FORWARDS, NO_STREAM, START, STREAM_EXISTS, excludeSystemEvents };
/** Thrown by `appendToStream` on a wrong expected revision; `actualVersion` is a bigint or 'no_stream'. */
export { WrongExpectedVersionError as EsdbWrongExpectedVersionError };
/** Raised while iterating `readStream` of a stream that does not exist. */
export { StreamNotFoundError as EsdbStreamNotFoundError };
/** What a call answers past its deadline (also what the adapter throws when a read runs past its own). */
export { DeadlineExceededError as EsdbDeadlineExceededError };
/** A server that is away or refuses work (gRPC status 14); answered 503 (src/errors.ts). */
export { UnavailableError as EsdbUnavailableError };
/** What the client makes of an answer it does not recognise (`dist/streams/appendToStream/unpackError.js`). */
export { UnknownError as EsdbUnknownError };
/** Thrown by `appendToStream` when the append's events exceed the server's MaxAppendSize (`maxAppendSize`, bytes). */
export { MaxAppendSizeExceededError as EsdbMaxAppendSizeExceededError };
export type { AllStreamResolvedEvent, AppendExpectedRevision, AppendResult, Filter, JSONEventData, Position, ReadPosition, ResolvedEvent };

/** A subscription to $all as the client hands it out: a readable stream of events with back-pressure. */
export interface EsdbSubscription extends AsyncIterable<AllStreamResolvedEvent> {
  /** Cancels the gRPC call. */
  unsubscribe(): Promise<void>;
  /** Releases the readable side, so that a read waiting on it settles. */
  destroy(error?: Error): unknown;
}

/** The calls of the client the event log uses, with the client's own option names and semantics. */
export interface EsdbClient {
  appendToStream(
    streamName: string,
    events: JSONEventData[],
    options?: { expectedRevision?: AppendExpectedRevision; deadline?: number },
  ): Promise<AppendResult>;
  readStream(
    streamName: string,
    options?: { fromRevision?: ReadRevision; direction?: Direction; maxCount?: number | bigint },
  ): AsyncIterable<ResolvedEvent>;
  readAll(options?: {
    fromPosition?: ReadPosition;
    direction?: Direction;
    maxCount?: number | bigint;
  }): AsyncIterable<AllStreamResolvedEvent>;
  subscribeToAll(
    options?: { fromPosition?: ReadPosition; filter?: Filter },
    readableOptions?: { highWaterMark?: number },
  ): EsdbSubscription;
  dispose(): Promise<void>;
}

/**
 * A client for a connection string such as `esdb://localhost:2113?tls=false` (or with credentials,
 * `esdb://user:password@host:2113`). The client connects lazily, on its first call.
 */
export function connectEsdbClient(connectionString: string): EsdbClient {
  return EventStoreDBClient.connectionString(connectionString);
}
