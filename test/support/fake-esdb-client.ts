import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { UnavailableError, UnknownError } from '@eventstore/db-client';
import {
  ANY,
  BACKWARDS,
  END,
  EsdbMaxAppendSizeExceededError,
  EsdbStreamNotFoundError,
  EsdbWrongExpectedVersionError,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type AppendResult,
  type EsdbClient,
  type EsdbSubscription,
  type Filter,
  type JSONEventData,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
} from '../../src/adapters/esdb/client.ts';

/**
 * An in-memory stand-in for `@eventstore/db-client`'s client, for the calls the event log makes, behaving
 * as the client and server are documented to (and as the server's source reads):
 *
 * - appendToStream: refused with the client's MaxAppendSizeExceededError when its events take more than
 *   the server's MaxAppendSize (default 1,048,576 bytes), counted as the server counts them before anything
 *   else (EventStore/EventStore, src/EventStore.Core/Services/Transport/Grpc/Streams.Append.cs:
 *   `size += Event.SizeOnDisk(eventType, data, metadata); if (size > _maxAppendSize) throw
 *   RpcExceptions.MaxAppendSizeExceeded(...)`, with Event.SizeOnDisk = data bytes + metadata bytes + 2 ×
 *   the type's length; the client sends data and metadata as JSON.stringify'd UTF-8, dist/streams/
 *   appendToStream/append.js, and maps the answer to MaxAppendSizeExceededError, unpackError.js).
 *   Expected revision ANY / NO_STREAM / STREAM_EXISTS / bigint; a mismatch throws the
 *   client's WrongExpectedVersionError (actualVersion bigint or 'no_stream'). Idempotence by event id: an
 *   append whose ids equal the events written after the expected revision (for ANY / STREAM_EXISTS: after
 *   the first id's event) is answered success without writing and without a position, as the server
 *   answers a retry.
 * - readStream: START / END / bigint, forwards or backwards, maxCount; an absent stream fails the read
 *   with StreamNotFoundError when it is iterated.
 * - readAll: $all with system events; forwards from a position includes the event at it, backwards from a
 *   position starts before it.
 * - subscribeToAll: catch-up then live, starting after fromPosition (exclusive), with the server-side
 *   filter (event type or stream name, regex or prefixes), as an object-mode readable stream that reads
 *   on only when its buffer is below the high-water mark (back-pressure). unsubscribe() ends it.
 * - Positions are byte offsets: commit = prepare = where the record starts, growing by the record's size.
 *   Reading $all (or subscribing) from an offset where no record starts fails, as the server does: it reads
 *   a record at that offset and fails in the middle of one (kurrent-io/KurrentDB#694).
 *   System events ($settings at start, a $statsCollected after every append by default) sit in $all
 *   between the service's events, so a missing filter shows.
 *
 * Everything answers asynchronously (after a turn of the event loop), like calls over the network.
 */
export interface FakeEsdbOptions {
  /** Log position of the first record (default 4096: the real log starts with the server's own records). */
  firstPosition?: bigint;
  /** Append a system event ($statsCollected) after every append (default true). */
  systemNoise?: boolean;
  /** Events a subscription receives per turn of the event loop, as messages arrive over the network (default 8). */
  deliveryChunk?: number;
  /** The server's MaxAppendSize in bytes (default 1,048,576, the server's own default). */
  maxAppendSize?: number;
}

/** The bytes an event counts for in an append, as the server counts them (Event.SizeOnDisk). */
export function sizeOnDisk(event: JSONEventData): number {
  const json = (value: unknown) => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value), 'utf8'));
  return json(event.data) + (event.metadata ? json(event.metadata) : 0) + event.type.length * 2;
}

/** How the fake server is away, or refuses work (see FakeEsdbClient.outage). */
export type Outage = 'unavailable' | 'hung' | 'not-ready' | 'busy';

interface StoredRecord {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  created: Date;
  position: Position;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class FakeEsdbClient implements EsdbClient {
  private readonly log: StoredRecord[] = [];
  private readonly streams = new Map<string, StoredRecord[]>();
  private readonly appended = new EventEmitter();
  private readonly subscriptions = new Set<FakeSubscription>();
  private nextPosition: bigint;
  private readonly systemNoise: boolean;
  private readonly deliveryChunk: number;
  private readonly maxAppendSize: number;
  private loseAnswers = 0;
  private disposed = false;
  /** Events pushed into subscription streams so far (what the client has read from the server). */
  pushedBySubscriptions = 0;
  /**
   * The server away or refusing work, as the client then answers (`dist/utils/CommandError.js`):
   * - `unavailable` (refused or lost): every call fails with UnavailableError, gRPC status 14, and open
   *   subscriptions end with it.
   * - `hung` (the connection stays open, the server no longer answers): no call is ever answered. The client
   *   opens reads (`dist/streams/readAll.js`, `readStream.js`) and the batch-append call
   *   (`dist/streams/appendToStream/batchAppend.js`: `callArguments(baseOptions, { deadline: Infinity })`) with
   *   no deadline of its own; an append's `deadline` only travels to the server inside the request
   *   (`options.setDeadline`), and a server that does not answer never applies it. A hung append is settled
   *   only by `dispose()`, which cancels the call (see below). Subscriptions end as for `unavailable`, as when the
   *   client's keep-alive pings (10 s, `keepAliveTimeout` 10 s) go unanswered.
   * - `not-ready` / `busy` (starting, electing a leader, overloaded): the server answers a batch append it cannot
   *   take with an error whose details are an empty message and whose text is "Server Is Not Ready" / "Server Is
   *   Busy" (EventStore/EventStore, src/EventStore.Core/Services/Transport/Grpc/Streams.BatchAppend.cs,
   *   `ConvertMessage`: `ClientMessage.NotHandled` → `new Status { Details = Any.Pack(new Empty()), Message = … }`);
   *   the client knows no such details type and makes it `new UnknownError(undefined, \`Could not recognize
   *   ${message}\`)` (`dist/streams/appendToStream/unpackError.js`, the fall-through of `unpackToCommandError`).
   *   Reads and subscriptions are refused with gRPC status 14 instead (`Streams.Read.cs`,
   *   `ConvertReadResponseException` → `RpcExceptions.ServerNotReady()` / `ServerBusy()`: "Server Is Not Ready" /
   *   "Server Is Too Busy"), which the client makes an UnavailableError.
   * null: up.
   */
  outage: Outage | null = null;
  /** Appends a hung server holds: rejected when the client is disposed. */
  private readonly held = new Set<(error: Error) => void>();

  /** Goes away (every open subscription ends as the connection drops or the server refuses) or comes back (null). */
  setOutage(outage: Outage | null) {
    this.outage = outage;
    if (outage) this.endSubscriptions(this.refusal());
  }

  /** The error a read or subscription fails with while the server is away or refuses work. */
  private refusal(): Error {
    if (this.outage === 'not-ready') return new UnavailableError(undefined, '14 UNAVAILABLE: Server Is Not Ready');
    if (this.outage === 'busy') return new UnavailableError(undefined, '14 UNAVAILABLE: Server Is Too Busy');
    return new UnavailableError(undefined, '14 UNAVAILABLE: No connection established');
  }

  /** What the server away or refusing does to an append: fails it as the client does, or never answers it. */
  private async served(): Promise<void> {
    if (this.outage === 'not-ready') throw new UnknownError(undefined, 'Could not recognize Server Is Not Ready');
    if (this.outage === 'busy') throw new UnknownError(undefined, 'Could not recognize Server Is Busy');
    if (this.outage === 'unavailable') throw this.refusal();
    if (this.outage === 'hung') await new Promise<never>((_, reject) => this.held.add(reject));
  }

  constructor(options: FakeEsdbOptions = {}) {
    this.nextPosition = options.firstPosition ?? 4096n;
    this.systemNoise = options.systemNoise ?? true;
    this.deliveryChunk = options.deliveryChunk ?? 8;
    this.maxAppendSize = options.maxAppendSize ?? 1_048_576;
    this.appended.setMaxListeners(0);
    this.write('$settings', '$settings', { userStreamAcl: { $r: '$all' } });
  }

  /** The next append is written but its answer is lost (the promise rejects as if the connection dropped). */
  loseNextAnswer() {
    this.loseAnswers++;
  }

  /** Writes a system event, as the server does on its own. */
  writeSystemEvent(streamId = '$stats-127.0.0.1:2113', type = '$statsCollected') {
    this.write(streamId, type, { 'proc-cpu': 1 });
  }

  /** Ends every open subscription as the server would: with an error (a dropped connection), or without. */
  endSubscriptions(error?: Error) {
    for (const subscription of this.subscriptions) subscription.end(error);
  }

  /** Ids of the events of a stream, in revision order. */
  idsOf(streamId: string): string[] {
    return (this.streams.get(streamId) ?? []).map((r) => r.id);
  }

  async appendToStream(
    streamName: string,
    events: JSONEventData[],
    options: { expectedRevision?: AppendExpectedRevision; deadline?: number } = {},
  ): Promise<AppendResult> {
    this.assertOpen();
    await turn();
    await this.served();
    let size = 0;
    for (const event of events) {
      size += sizeOnDisk(event);
      if (size > this.maxAppendSize) throw EsdbMaxAppendSizeExceededError.fromMaxAppendSize(this.maxAppendSize);
    }
    const expected = options.expectedRevision ?? ANY;
    const stream = this.streams.get(streamName) ?? [];
    const current = stream.length - 1;
    const refuse = () =>
      new EsdbWrongExpectedVersionError(undefined, {
        streamName,
        expected,
        current: current === -1 ? NO_STREAM : BigInt(current),
      });

    const retry = this.retryOf(stream, expected, events);
    if (retry === 'corrupted') throw refuse();
    if (retry !== null) return { success: true, nextExpectedRevision: retry, position: undefined };

    const ok =
      expected === ANY ||
      (expected === NO_STREAM && current === -1) ||
      (expected === STREAM_EXISTS && current >= 0) ||
      (typeof expected === 'bigint' && expected === BigInt(current));
    if (!ok) throw refuse();

    let last: StoredRecord | undefined;
    for (const event of events) {
      last = this.write(streamName, event.type, event.data, event.metadata, event.id);
    }
    if (this.systemNoise) this.writeSystemEvent();
    if (this.loseAnswers > 0) {
      this.loseAnswers--;
      throw new Error('14 UNAVAILABLE: connection dropped (fake)');
    }
    return { success: true, nextExpectedRevision: last!.revision, position: { ...last!.position } };
  }

  /**
   * The revision a retried append reaches, 'corrupted' when its ids only partly match what was written,
   * or null when it is no retry. The server compares the ids with the events after the expected revision;
   * for ANY and STREAM_EXISTS it looks the first id up in the stream.
   */
  private retryOf(stream: StoredRecord[], expected: AppendExpectedRevision, events: JSONEventData[]): bigint | 'corrupted' | null {
    if (events.length === 0) return null;
    let start: number;
    if (expected === ANY || expected === STREAM_EXISTS) {
      start = stream.findIndex((r) => r.id === events[0].id);
      if (start === -1) return null;
    } else {
      start = expected === NO_STREAM ? 0 : Number(expected) + 1;
      if (start >= stream.length) return null;
    }
    const matches = events.filter((e, i) => stream[start + i]?.id === e.id).length;
    if (matches === events.length) return BigInt(start + events.length - 1);
    return matches > 0 ? 'corrupted' : null;
  }

  readStream(
    streamName: string,
    options: { fromRevision?: bigint | typeof START | typeof END; direction?: string; maxCount?: number | bigint } = {},
  ): AsyncIterable<ResolvedEvent> {
    this.assertOpen();
    const { fromRevision = START, direction, maxCount = Number.MAX_SAFE_INTEGER } = options;
    return this.answer(() => {
      const stream = this.streams.get(streamName);
      if (!stream) throw new EsdbStreamNotFoundError(undefined, streamName);
      let records: StoredRecord[];
      if (direction === BACKWARDS) {
        const from = fromRevision === END ? stream.length - 1 : fromRevision === START ? 0 : Number(fromRevision);
        records = stream.slice(0, from + 1).reverse();
      } else {
        const from = fromRevision === START ? 0 : fromRevision === END ? stream.length : Number(fromRevision);
        records = stream.slice(from);
      }
      return records.slice(0, Number(maxCount)).map((r) => ({ event: toRecorded(r) }));
    });
  }

  readAll(
    options: { fromPosition?: ReadPosition; direction?: string; maxCount?: number | bigint } = {},
  ): AsyncIterable<AllStreamResolvedEvent> {
    this.assertOpen();
    const { fromPosition = START, direction, maxCount = Number.MAX_SAFE_INTEGER } = options;
    return this.answer(() => {
      this.assertRecordStart(fromPosition);
      let records: StoredRecord[];
      if (direction === BACKWARDS) {
        if (fromPosition === START) records = [];
        else if (fromPosition === END) records = this.log.slice();
        else records = this.log.filter((r) => r.position.commit < fromPosition.commit);
        records.reverse();
      } else {
        if (fromPosition === START) records = this.log.slice();
        else if (fromPosition === END) records = [];
        else records = this.log.filter((r) => r.position.commit >= fromPosition.commit);
      }
      return records.slice(0, Number(maxCount)).map(toResolvedAll);
    });
  }

  subscribeToAll(
    options: { fromPosition?: ReadPosition; filter?: Filter } = {},
    readableOptions: { highWaterMark?: number } = {},
  ): EsdbSubscription {
    this.assertOpen();
    const { fromPosition = START, filter } = options;
    let start: number;
    if (fromPosition === START) start = 0;
    else if (fromPosition === END) start = this.log.length;
    else start = this.log.findIndex((r) => r.position.commit > fromPosition.commit);
    const subscription = new FakeSubscription(
      this.log,
      this.appended,
      start === -1 ? this.log.length : start,
      filter ? matcher(filter) : () => true,
      readableOptions.highWaterMark ?? 16,
      this.deliveryChunk,
      () => this.pushedBySubscriptions++,
      (s) => this.subscriptions.delete(s),
    );
    this.subscriptions.add(subscription);
    if (this.outage) subscription.end(this.refusal());
    else if (!this.isRecordStart(fromPosition)) subscription.end(this.notARecordStart(fromPosition));
    return subscription;
  }

  /** START, END, where a record starts, or the end of the log (where the next one will). */
  private isRecordStart(position: ReadPosition): boolean {
    if (position === START || position === END) return true;
    const { commit, prepare } = position as { commit: bigint; prepare: bigint };
    return commit === prepare && (commit === this.nextPosition || this.log.some((r) => r.position.commit === commit));
  }

  private notARecordStart(position: ReadPosition): Error {
    const { commit } = position as { commit: bigint };
    return new Error(`13 INTERNAL: Read all failed: no record starts at commit position ${commit}`);
  }

  private assertRecordStart(position: ReadPosition): void {
    if (!this.isRecordStart(position)) throw this.notARecordStart(position);
  }

  /**
   * As the client's `dispose()`: cancels its open calls (`dist/Client/index.js`, `stream.cancel()`). A held append
   * fails then with what the client makes of a cancellation it asked for (`convertToCommandError`: not a
   * CancelledError but an UnknownError with gRPC's message).
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const reject of this.held) reject(new UnknownError(undefined, '1 CANCELLED: Cancelled on client'));
    this.held.clear();
    await Promise.all([...this.subscriptions].map((s) => s.unsubscribe()));
  }

  /** Number of subscriptions not yet ended (for tests of unsubscribe and close). */
  get openSubscriptions(): number {
    return this.subscriptions.size;
  }

  private write(streamId: string, type: string, data: unknown, metadata?: unknown, id: string = randomUUID()) {
    const stream = this.streams.get(streamId) ?? [];
    // Stored as the server stores them: serialized, so a reader gets copies.
    const dataJson = JSON.stringify(data);
    const metadataJson = metadata === undefined ? '' : JSON.stringify(metadata);
    const record: StoredRecord = {
      streamId,
      id,
      revision: BigInt(stream.length),
      type,
      data: JSON.parse(dataJson),
      metadata: metadataJson ? JSON.parse(metadataJson) : undefined,
      created: new Date(),
      position: { commit: this.nextPosition, prepare: this.nextPosition },
    };
    const size = 120 + streamId.length + type.length + Buffer.byteLength(dataJson) + Buffer.byteLength(metadataJson);
    this.nextPosition += BigInt(size);
    stream.push(record);
    this.streams.set(streamId, stream);
    this.log.push(record);
    this.appended.emit('appended');
    return record;
  }

  /** A read answered as the client answers it: a readable stream, delivered after a turn, failing when iterated. */
  private answer<T>(produce: () => T[]): Readable & AsyncIterable<T> {
    let items: T[] | null = null;
    const outage = () => this.outage;
    const refusal = () => this.refusal();
    return new Readable({
      objectMode: true,
      read() {
        if (outage() === 'hung') return; // no answer, and no deadline on a read
        if (outage()) {
          const error = refusal();
          setImmediate(() => this.destroy(error));
          return;
        }
        setImmediate(() => {
          try {
            items ??= produce();
          } catch (error) {
            this.destroy(error as Error);
            return;
          }
          this.push(items.length > 0 ? items.shift() : null);
        });
      },
    });
  }

  private assertOpen() {
    if (this.disposed) throw new Error('the fake EventStoreDB client is disposed');
  }
}

class FakeSubscription extends Readable implements EsdbSubscription {
  private cursor: number;
  private wanted = false;
  private scheduled = false;
  private cancelled = false;
  private readonly onAppend = () => this.schedule();

  constructor(
    private readonly log: StoredRecord[],
    private readonly appended: EventEmitter,
    start: number,
    private readonly accepts: (record: StoredRecord) => boolean,
    highWaterMark: number,
    private readonly chunk: number,
    private readonly onPush: () => void,
    private readonly onEnd: (s: FakeSubscription) => void,
  ) {
    super({ objectMode: true, highWaterMark });
    this.cursor = start;
    this.appended.on('appended', this.onAppend);
    this.once('close', () => this.detach());
  }

  override _read() {
    this.wanted = true;
    this.schedule();
  }

  /**
   * Pushes what is stored after the cursor while the reader wants more, a few events per turn (as they
   * arrive over the network); live events wake it up.
   */
  private schedule() {
    if (this.scheduled || !this.wanted || this.cancelled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      let pushed = 0;
      while (this.wanted && !this.cancelled && this.cursor < this.log.length && pushed < this.chunk) {
        const record = this.log[this.cursor++];
        if (!this.accepts(record)) continue;
        this.onPush();
        pushed++;
        this.wanted = this.push(toResolvedAll(record));
      }
      if (this.cursor < this.log.length) this.schedule();
    });
  }

  async unsubscribe(): Promise<void> {
    if (this.cancelled) return;
    this.cancelled = true;
    this.detach();
    // As the real client: the cancelled call ends the stream after what it had buffered.
    setImmediate(() => this.push(null));
  }

  /** The server side of the call ends: the stream fails, or ends after what it had buffered. */
  end(error?: Error) {
    this.cancelled = true;
    this.detach();
    setImmediate(() => (error ? this.destroy(error) : this.push(null)));
  }

  private detach() {
    this.appended.off('appended', this.onAppend);
    this.onEnd(this);
  }
}

function matcher(filter: Filter): (record: StoredRecord) => boolean {
  const test =
    'regex' in filter
      ? (value: string) => new RegExp(filter.regex).test(value)
      : (value: string) => filter.prefixes.some((prefix) => value.startsWith(prefix));
  return (record) => test(filter.filterOn === 'eventType' ? record.type : record.streamId);
}

function toRecorded(record: StoredRecord) {
  return {
    streamId: record.streamId,
    id: record.id,
    isJson: true as const,
    revision: record.revision,
    type: record.type,
    created: record.created,
    data: structuredClone(record.data) as Record<string, unknown>,
    metadata: structuredClone(record.metadata) as Record<string, unknown>,
    position: { ...record.position },
  };
}

function toResolvedAll(record: StoredRecord): AllStreamResolvedEvent {
  return { event: toRecorded(record), commitPosition: record.position.commit };
}
