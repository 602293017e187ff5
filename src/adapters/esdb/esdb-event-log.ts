/**
 * The event log on EventStoreDB (production), through the narrow client of ./client.ts.
 *
 *   const log = await EsdbEventLog.connect(process.env.EVENTSTOREDB_URL);   // e.g. esdb://localhost:2113?tls=false
 *   const log = new EsdbEventLog(client);                                  // any EsdbClient (tests: the fake)
 *
 * The connection string's user must be allowed to read $all (an admin or ops user on a secure server;
 * an insecure server has no access control). EventStoreDB 22.6 or later is required (event positions on
 * stream reads).
 *
 * - Streams, revisions and expected revisions are EventStoreDB's own; a refused expected revision becomes
 *   the port's WrongExpectedVersionError. Event ids are deterministic for exact expected revisions, so a
 *   retried append is idempotent (see ./event-ids.ts).
 * - An event is stored as a JSON event of the same type; its metadata JSON holds the port's metadata
 *   (tenant, correlationId) plus `schemaVersion` and `$correlationId` (see ./mapping.ts).
 * - Positions are commit positions: byte offsets in the transaction log, increasing but not by one per event
 *   (see ./mapping.ts). Reads of $all and the subscription leave out system events (types starting with `$`);
 *   the subscription filters them on the server.
 */
import type {
  AppendResult,
  EventLog,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../../ports/event-log.ts';
import { WrongExpectedVersionError } from '../../ports/event-log.ts';
import {
  BACKWARDS,
  END,
  EsdbDeadlineExceededError,
  EsdbStreamNotFoundError,
  EsdbWrongExpectedVersionError,
  FORWARDS,
  connectEsdbClient,
  excludeSystemEvents,
  type AllStreamResolvedEvent,
  type EsdbClient,
  type ReadPosition,
  type ResolvedEvent,
} from './client.ts';
import { eventIds } from './event-ids.ts';
import { notTaken, within } from './faults.ts';
import {
  isSystemEvent,
  satisfies,
  toClientExpected,
  toEventData,
  toPortActual,
  toReadPosition,
  toRecorded,
  toSafeNumber,
} from './mapping.ts';
import { PulledSubscription } from './pulled-subscription.ts';

/** Events read backwards per page while looking for the newest non-system event. */
const HEAD_PAGE = 100;
/**
 * How long a call may take (ms): past it, DeadlineExceededError, answered 503 (src/errors.ts). Reads and appends
 * are bounded here, since the client bounds neither (./faults.ts `within`, `bounded` below).
 */
export const ESDB_DEADLINE_MS = 10_000;

export class EsdbEventLog implements EventLog {
  private closed = false;
  private readonly subscriptions = new Set<PulledSubscription>();

  constructor(
    private readonly client: EsdbClient,
    private readonly deadline = ESDB_DEADLINE_MS,
  ) {}

  /**
   * Connects to the server named by the connection string and checks, by reading the head of $all, that
   * it answers and lets this user read $all, so that a wrong URL or user fails at start, not in a projector.
   */
  static async connect(url: string, options: { verify?: boolean } = {}): Promise<EsdbEventLog> {
    const log = new EsdbEventLog(connectEsdbClient(url));
    if (options.verify === false) return log;
    try {
      await log.headPosition();
    } catch (error) {
      await log.close();
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`EventStoreDB at ${redact(url)} cannot be read ($all): ${reason}`, { cause: error });
    }
    return log;
  }

  async appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    this.assertOpen();
    const expected = options.expectedRevision ?? 'any';
    if (events.length === 0) return this.appendNothing(streamId, expected);
    const ids = eventIds(streamId, expected, events);
    let result;
    try {
      const call = this.client.appendToStream(
        streamId,
        events.map((event, i) => toEventData(event, ids[i])),
        { expectedRevision: toClientExpected(expected), deadline: this.deadline },
      );
      result = await within(call, this.deadline, `append to ${streamId}`);
    } catch (error) {
      if (error instanceof EsdbWrongExpectedVersionError) {
        throw new WrongExpectedVersionError(streamId, expected, toPortActual(error.actualVersion));
      }
      throw notTaken(error) ?? error;
    }
    const nextExpectedRevision = toSafeNumber(result.nextExpectedRevision, 'revision');
    // The server sends no position when it recognised a retry of an append it had already written.
    const position =
      result.position && result.position.commit > 0n
        ? toSafeNumber(result.position.commit, 'position')
        : await this.positionOfRevision(streamId, nextExpectedRevision);
    return { nextExpectedRevision, position };
  }

  /** An empty append writes nothing (EventStoreDB would not say where the stream is): check and answer here. */
  private async appendNothing(streamId: string, expected: ExpectedRevision): Promise<AppendResult> {
    const last = await this.readStreamRaw(streamId, { fromRevision: END, direction: BACKWARDS, maxCount: 1 });
    const current = last.length > 0 ? last[0].revision : -1;
    if (!satisfies(expected, current)) {
      throw new WrongExpectedVersionError(streamId, expected, current === -1 ? 'no_stream' : current);
    }
    return { nextExpectedRevision: current, position: await this.headPosition() };
  }

  private async positionOfRevision(streamId: string, revision: number): Promise<number> {
    const [event] = await this.readStreamRaw(streamId, {
      fromRevision: BigInt(revision),
      direction: FORWARDS,
      maxCount: 1,
    });
    if (!event) throw new Error(`EventStoreDB answered an append to ${streamId} with revision ${revision}, not found`);
    return event.position;
  }

  async readStream(streamId: string, options: { fromRevision?: number } = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const from = options.fromRevision ?? 0;
    if (!Number.isSafeInteger(from) || from < 0) {
      throw new RangeError(`fromRevision must be a non-negative integer, got ${from}`);
    }
    return this.readStreamRaw(streamId, { fromRevision: BigInt(from), direction: FORWARDS });
  }

  private async readStreamRaw(streamId: string, options: Parameters<EsdbClient['readStream']>[1]): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.bounded(this.client.readStream(streamId, options))) events.push(toRecorded(resolved));
    } catch (error) {
      if (error instanceof EsdbStreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  /**
   * A page of $all after a position. The client's read starts at the given position itself and returns
   * system events too: both are skipped, and pages are read until `maxCount` events are found or $all ends.
   */
  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    this.assertOpen();
    const { maxCount } = options;
    if (!Number.isSafeInteger(maxCount) || maxCount < 1) {
      throw new RangeError(`maxCount must be a positive integer, got ${maxCount}`);
    }
    const events: RecordedEvent[] = [];
    let cursor = options.fromPosition;
    while (events.length < maxCount) {
      // One more than needed: the first event read may be the one at the cursor, already seen.
      const want = maxCount - events.length + 1;
      let read = 0;
      const page = this.bounded(this.client.readAll({ fromPosition: toReadPosition(cursor), direction: FORWARDS, maxCount: want }));
      for await (const resolved of page) {
        read++;
        const position = rawPosition(resolved);
        if (position <= cursor) continue;
        cursor = position;
        if (events.length < maxCount && !isSystemEvent(resolved)) events.push(toRecorded(resolved));
      }
      if (read < want) break;
    }
    return events;
  }

  /**
   * A read of the client bounded by the deadline. The client's reads have none (`dist/streams/readAll.js` and
   * `readStream.js` pass `deadline: Infinity` over the caller's), so a server that stops answering would hold the
   * read, and the request waiting on it, for ever. Past it the read's stream is destroyed.
   */
  private bounded<T>(read: AsyncIterable<T>): AsyncIterable<T> {
    const ms = this.deadline;
    return {
      async *[Symbol.asyncIterator]() {
        let timer: NodeJS.Timeout | undefined;
        const expired = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new EsdbDeadlineExceededError(undefined, `EventStoreDB read took longer than ${ms} ms`)), ms);
        });
        expired.catch(() => undefined);
        const iterator = read[Symbol.asyncIterator]();
        try {
          for (;;) {
            const next = await Promise.race([iterator.next(), expired]);
            if (next.done) return;
            yield next.value;
          }
        } finally {
          clearTimeout(timer);
          (read as { destroy?: () => unknown }).destroy?.();
        }
      },
    };
  }

  /** Position of the newest event that is not a system event (0 when there is none). */
  async headPosition(): Promise<number> {
    this.assertOpen();
    let from: ReadPosition = END;
    for (;;) {
      let read = 0;
      let oldest = 0;
      const page = this.bounded(this.client.readAll({ fromPosition: from, direction: BACKWARDS, maxCount: HEAD_PAGE }));
      for await (const resolved of page) {
        read++;
        oldest = rawPosition(resolved);
        if (!isSystemEvent(resolved)) return oldest;
      }
      if (read < HEAD_PAGE) return 0;
      // Reading backwards from a position starts before the event at it.
      from = toReadPosition(oldest);
    }
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const subscription = new PulledSubscription(
      (fromPosition, highWaterMark) =>
        // Positions given to a subscription are exclusive: delivery starts after the event at fromPosition.
        this.client.subscribeToAll({ fromPosition: toReadPosition(fromPosition), filter: excludeSystemEvents() }, { highWaterMark }),
      (resolved) => (isSystemEvent(resolved) ? null : toRecorded(resolved)),
      options.fromPosition,
      options.batchSize ?? 1000,
      (s) => this.subscriptions.delete(s),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.unsubscribe()));
    await this.client.dispose();
  }

  private assertOpen() {
    if (this.closed) throw new Error('event log is closed');
  }
}

/** The commit position of a resolved event from $all, as a number (system events included). */
function rawPosition(resolved: AllStreamResolvedEvent | ResolvedEvent): number {
  const commit = resolved.event?.position?.commit ?? resolved.commitPosition;
  if (commit === undefined) throw new Error('EventStoreDB returned an event of $all without its position');
  return toSafeNumber(commit, 'position');
}

/** The URL without its credentials, for messages. */
function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
