import type { EventLog, RecordedEvent, StoredEvent, Subscription } from '../ports/event-log.ts';
import { publicData, type EventDefinition } from './define.ts';
import { notAPosition, type PositionCodec } from './position.ts';
import { ValidationError } from '../errors.ts';
import { feedRecord, type FeedEvent } from './feed-items.ts';
import { StreamSlots } from '../http/stream-slots.ts';
import type { Logger } from '../logger.ts';

/**
 * Streams open and long-polls waiting at once in one process (each holds a socket); one more is a 503. A house holds
 * at most half of them (then a 429).
 */
export const MAX_FEED_READERS = 2000;

/** How many events one read of the log brings while a page is gathered. */
const SCAN_BATCH = 1000;
/** Events the shared subscription keeps after it saw them: streams and long-polls read them from memory. */
const RECENT_KEPT = 20_000;
/** The first wait before the shared subscription is opened again after the log ended it; doubled up to the last. */
const RESUBSCRIBE_MS = [100, 5_000] as const;

export interface FeedPage {
  events: FeedEvent[];
  /**
   * How far the log was looked at for this page: the last event's position when more follow, else the position
   * the scan reached (events of other tenants or types up to it need not be read again).
   */
  through: number;
  /** More events of the tenant (of the types asked) follow the last one given. */
  hasMore: boolean;
}

export interface FeedRequest {
  /** Exclusive: events after this log position (0: from the start). */
  after: number;
  /** Only these types (null: every type of the feed). */
  types: ReadonlySet<string> | null;
  limit: number;
  /** When nothing newer exists, wait this long for an event (0: answer at once). */
  waitMs: number;
  /** Ends the wait early (the client went away). */
  signal?: AbortSignal;
  /**
   * Ends the wait early, with no events, when the log takes an event this accepts, whatever its tenant or type
   * (the reader's credential revoked: the caller checks it before it hands any event over).
   */
  wakeOn?: (event: RecordedEvent) => boolean;
}

interface Waiter {
  tenant: string;
  types: ReadonlySet<string>;
  from: number;
  wakeOn?: (event: RecordedEvent) => boolean;
  wake(found: boolean): void;
}

/** One tenant's part of the log, as the back office reads it (BACKOFFICE.md "The event feed"). */
export interface TenantFeed {
  page(request: FeedRequest): Promise<FeedPage>;
  /** The log's last position now. */
  head(): Promise<number>;
  /** A log position as this house sees it (opaque). */
  token(position: number): string;
  /**
   * The log position of one this house was given back (`after`, `Last-Event-ID`, a replay's `After`; empty: the
   * start): a 400 naming `field` when it is not the house's, or lies beyond the log's end.
   */
  position(text: string, field: string): Promise<number>;
  /** Aborted when the process stops. */
  readonly stopping: AbortSignal;
  /**
   * Counts a waiting request or an open stream among the feed's readers until the returned function is called: 503
   * when the process is full, 429 when the house holds its share (half) already.
   */
  reading(): () => void;
  /**
   * Calls `listener` with each event the log takes from now on on one of these streams, whatever its tenant (an
   * open stream's credential: its Api-Key's, house's or member's stream); resolves, once listening, to the stop.
   */
  onStreams(streamIds: readonly string[], listener: StreamListener): Promise<() => void>;
}

/** Told of an event on a stream it listens to (TenantFeed.onStreams): where it is in the log and its type. */
export type StreamListener = (event: { position: number; type: string; streamId: string }) => void;

/**
 * The event feed over the log: a tenant's events in log order, never an operator's record (events defined
 * `operator: true`), data without the definitions' private fields. Pages are read from the log itself (no read
 * model), so a page is complete: an event is either before its `Next` or after it.
 */
export class EventFeed {
  private readonly byType = new Map<string, EventDefinition>();
  /** Each type's private fields as their keys appear in stored JSON (`"name"`, UTF-8). */
  private readonly privateKeys = new Map<string, Buffer[]>();
  /** The types a tenant's feed carries. */
  readonly types: readonly string[];
  private readonly waiters = new Set<Waiter>();
  /** Listeners of given streams' events (TenantFeed.onStreams), by stream id: one lookup per event delivered. */
  private readonly streamListeners = new Map<string, Set<StreamListener>>();
  private watching: Promise<void> | null = null;
  /** The events the shared subscription saw lately, in log order: every event after `recentFrom` up to `watched`. */
  private recent: RecordedEvent[] = [];
  private recentFrom = Number.POSITIVE_INFINITY;
  private watched = 0;
  /** Each recent event made a feed event once, whoever reads it. */
  private readonly converted = new WeakMap<RecordedEvent, FeedEvent>();
  private readonly slots = new StreamSlots('streams and waiting requests', MAX_FEED_READERS, null);
  /** Long-polls waiting and streams open now (the feed-readers gauge). */
  get readers(): number {
    return this.slots.held;
  }

  constructor(
    private readonly log: EventLog,
    definitions: readonly EventDefinition[],
    /** The houses' opaque positions. */
    private readonly positions: PositionCodec,
    /** Aborted when the process stops: waiting requests answer at once (with what they have: nothing), streams end. */
    readonly stopping: AbortSignal = new AbortController().signal,
    /** Where a subscription the log ended is reported. */
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {
    for (const definition of definitions) {
      if (definition.operator) continue;
      this.byType.set(definition.type, definition);
      this.privateKeys.set(
        definition.type,
        (definition.private ?? []).map((field) => Buffer.from(JSON.stringify(field), 'utf8')),
      );
    }
    this.types = [...this.byType.keys()];
  }

  private readonly tenants = new Map<string, TenantFeed>();

  /** The tenant's part of the feed (one object per tenant, so that what a process keeps per tenant can key on it). */
  forTenant(tenant: string): TenantFeed {
    const known = this.tenants.get(tenant);
    if (known) return known;
    const positions = this.positions.forTenant(tenant);
    const feed: TenantFeed = {
      page: (request) => this.page(tenant, request),
      head: () => this.log.headPosition(),
      token: (position) => positions.token(position),
      position: async (text, field) => {
        const position = positions.parse(text, field);
        if (position > 0 && position > (await this.log.headPosition())) throw notAPosition(field);
        return position;
      },
      stopping: this.stopping,
      reading: () => this.slots.take(tenant),
      onStreams: (streamIds, listener) => this.onStreams(streamIds, listener),
    };
    this.tenants.set(tenant, feed);
    return feed;
  }

  private async page(tenant: string, request: FeedRequest): Promise<FeedPage> {
    const types = request.types ? [...request.types].filter((t) => this.byType.has(t)) : this.types;
    let scan = await this.scan(tenant, types, request.after, request.limit);
    if (scan.found.length === 0 && request.waitMs > 0 && !this.stopping.aborted) {
      if (await this.waitFor(tenant, new Set(types), scan.scannedTo, request.waitMs, request.signal, request.wakeOn))
        scan = await this.scan(tenant, types, scan.scannedTo, request.limit);
    }
    const events = scan.found.slice(0, request.limit);
    const hasMore = scan.found.length > request.limit;
    // The positions of the events not made feed events yet, in one go (one cipher for every block).
    const made = events.map((e) => (isStored(e) ? undefined : this.converted.get(e)));
    const tokens = this.positions.forTenant(tenant).tokens(events.filter((_, i) => !made[i]).map((e) => e.position));
    let next = 0;
    return {
      events: events.map((e, i) => made[i] ?? (isStored(e) ? this.fromStored(e, tokens[next++]) : this.toFeedEvent(e, tokens[next++]))),
      hasMore,
      through: hasMore ? events.at(-1)!.position : Math.max(scan.scannedTo, events.at(-1)?.position ?? 0),
    };
  }

  /** Up to limit + 1 events of the tenant of these types after `after`, and how far the log was read. */
  private async scan(
    tenant: string,
    types: readonly string[],
    after: number,
    limit: number,
  ): Promise<{ found: Array<RecordedEvent | StoredEvent>; scannedTo: number }> {
    if (after >= this.recentFrom) return this.scanRecent(tenant, new Set(types), after, limit);
    const wanted = new Set(types);
    const everyType = types.length === this.types.length;
    const found: Array<RecordedEvent | StoredEvent> = [];
    let scanned = 0;
    let from = after;
    for (;;) {
      // Read about what the page still needs (by the share of matching events so far), not a whole batch more.
      const need = limit + 1 - found.length;
      const share = scanned === 0 ? 1 : Math.max(found.length / scanned, 0.01);
      const maxCount = Math.min(SCAN_BATCH, Math.ceil(need / share) + 16);
      const { batch, covered } = await this.read(from, maxCount, everyType ? null : types);
      scanned += batch.length;
      for (const event of batch) {
        if (tenantOf(event) !== tenant || !wanted.has(event.type)) continue;
        found.push(event);
        if (found.length > limit) return { found, scannedTo: event.position };
      }
      if (covered <= from) return { found, scannedTo: from };
      from = covered;
    }
  }

  /**
   * A batch of the log after `from` (of these types where the log filters them), as stored where the log can give
   * it so, and how far the read covered.
   */
  private async read(
    from: number,
    maxCount: number,
    types: readonly string[] | null,
  ): Promise<{ batch: ReadonlyArray<RecordedEvent | StoredEvent>; covered: number }> {
    const { log } = this;
    if (log.readStored) {
      const read = await log.readStored(types ? { fromPosition: from, maxCount, types } : { fromPosition: from, maxCount });
      return { batch: read.events, covered: read.position };
    }
    if (log.readTypes && types) {
      const read = await log.readTypes({ fromPosition: from, maxCount, types });
      return { batch: read.events, covered: read.position };
    }
    const batch = await log.readAll({ fromPosition: from, maxCount });
    return { batch, covered: batch.at(-1)?.position ?? from };
  }

  /** The scan of what the shared subscription has seen (no read of the log), up to where it has read. */
  private scanRecent(tenant: string, wanted: ReadonlySet<string>, after: number, limit: number) {
    const found: RecordedEvent[] = [];
    let low = 0;
    let high = this.recent.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.recent[middle].position <= after) low = middle + 1;
      else high = middle;
    }
    for (let i = low; i < this.recent.length; i++) {
      const event = this.recent[i];
      if (event.metadata.tenant !== tenant || !wanted.has(event.type)) continue;
      found.push(event);
      if (found.length > limit) return { found, scannedTo: event.position };
    }
    return { found, scannedTo: Math.max(after, this.watched) };
  }

  /**
   * Waits until an event of the tenant of these types comes after `from`: true; false after `ms`, at a stop of
   * the process or when the request's signal aborts. Every waiter of the process shares one log subscription.
   */
  private async waitFor(
    tenant: string,
    types: ReadonlySet<string>,
    from: number,
    ms: number,
    signal?: AbortSignal,
    wakeOn?: (event: RecordedEvent) => boolean,
  ): Promise<boolean> {
    if (signal?.aborted || this.stopping.aborted) return false;
    await this.watch();
    let wake!: (found: boolean) => void;
    const woken = new Promise<boolean>((resolve) => (wake = resolve));
    const waiter: Waiter = { tenant, types, from, wakeOn, wake };
    this.waiters.add(waiter);
    const timer = setTimeout(() => wake(false), ms);
    const onStop = () => wake(false);
    this.stopping.addEventListener('abort', onStop, { once: true });
    signal?.addEventListener('abort', onStop, { once: true });
    try {
      // Events appended between the caller's scan and the watch's start are looked for once, here.
      const missed = await this.scan(tenant, [...types], from, 0);
      if (missed.found.length > 0) return true;
      return await woken;
    } finally {
      this.waiters.delete(waiter);
      clearTimeout(timer);
      this.stopping.removeEventListener('abort', onStop);
      signal?.removeEventListener('abort', onStop);
    }
  }

  /** TenantFeed.onStreams: the shared subscription started (once), then the listener added under each stream. */
  private async onStreams(streamIds: readonly string[], listener: StreamListener): Promise<() => void> {
    await this.watch();
    const ids = [...new Set(streamIds)];
    for (const id of ids) {
      const listeners = this.streamListeners.get(id) ?? new Set();
      listeners.add(listener);
      this.streamListeners.set(id, listeners);
    }
    return () => {
      for (const id of ids) {
        const listeners = this.streamListeners.get(id);
        listeners?.delete(listener);
        if (listeners?.size === 0) this.streamListeners.delete(id);
      }
    };
  }

  /**
   * Starts the one subscription that wakes waiters (from the log's head), once per process; a start that failed
   * (the log unreachable, PostgreSQL restarting) is tried again by the next waiter rather than kept failing.
   */
  private watch(): Promise<void> {
    this.watching ??= (async () => {
      const head = await this.log.headPosition();
      this.recentFrom = head;
      this.watched = head;
      void this.follow();
    })();
    const starting = this.watching;
    starting.catch(() => {
      if (this.watching === starting) this.watching = null;
    });
    return this.watching;
  }

  /**
   * Follows the log until the process stops. A client ends its subscription on a dropped connection, a server
   * restart or a leader change and never resubscribes by itself: it is opened again from the last event seen.
   */
  private async follow(): Promise<void> {
    let backoff: number = RESUBSCRIBE_MS[0];
    while (!this.stopping.aborted) {
      let subscription: Subscription | null = null;
      const stop = () => void subscription?.unsubscribe();
      this.stopping.addEventListener('abort', stop, { once: true });
      try {
        subscription = this.log.subscribeToAll({ fromPosition: this.watched, batchSize: SCAN_BATCH });
        for await (const batch of subscription) {
          backoff = RESUBSCRIBE_MS[0];
          this.deliver(batch);
        }
      } catch (error) {
        if (!this.stopping.aborted)
          this.logger?.warn(
            { err: error instanceof Error ? error.message : String(error), retryInMs: backoff },
            'feed subscription ended; resubscribing',
          );
      } finally {
        this.stopping.removeEventListener('abort', stop);
      }
      if (this.stopping.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, backoff).unref());
      backoff = Math.min(backoff * 2, RESUBSCRIBE_MS[1]);
    }
  }

  /** A batch of the subscription: kept, and the waiters it concerns woken. */
  private deliver(batch: RecordedEvent[]): void {
    this.keep(batch);
    if (this.streamListeners.size > 0) this.tellStreamListeners(batch);
    for (const waiter of this.waiters) {
      if (batch.some((e) => e.position > waiter.from && e.metadata.tenant === waiter.tenant && waiter.types.has(e.type))) waiter.wake(true);
      else if (waiter.wakeOn && batch.some((e) => e.position > waiter.from && waiter.wakeOn!(e))) waiter.wake(false);
    }
  }

  /** Tells each event to the listeners of its stream; a listener that throws stops nothing else. */
  private tellStreamListeners(batch: RecordedEvent[]): void {
    for (const event of batch) {
      const listeners = this.streamListeners.get(event.streamId);
      if (!listeners) continue;
      const told = { position: event.position, type: event.type, streamId: event.streamId };
      for (const listener of listeners) {
        try {
          listener(told);
        } catch (error) {
          this.logger?.warn({ err: error instanceof Error ? error.message : String(error) }, 'a stream listener failed');
        }
      }
    }
  }

  /** Keeps a batch the subscription brought (the oldest go past RECENT_KEPT). */
  private keep(batch: RecordedEvent[]): void {
    if (batch.length === 0) return;
    this.recent.push(...batch);
    this.watched = batch.at(-1)!.position;
    // Trimmed a chunk at a time, not an event at a time.
    const over = this.recent.length - RECENT_KEPT;
    if (over > RECENT_KEPT / 10) {
      this.recentFrom = this.recent[over - 1].position;
      this.recent = this.recent.slice(over);
    }
  }

  /** A recent event as the feed's, made once however many readers take it (its token: the event's house's). */
  private toFeedEvent(event: RecordedEvent, token: string): FeedEvent {
    const known = this.converted.get(event);
    if (known) return known;
    const feedEvent = feedRecord(event, token, { parsed: publicData(this.byType.get(event.type)!, event.data) });
    this.converted.set(event, feedEvent);
    return feedEvent;
  }

  /**
   * A stored event as the feed's. Its text is passed on as it is when its version is the type's own (an older one
   * would be upcast) and it names none of the type's private fields (the text has no `"field"` anywhere: false
   * alarms only cost a parse); otherwise it is parsed and the private fields left out.
   */
  private fromStored(event: StoredEvent, token: string): FeedEvent {
    const definition = this.byType.get(event.type)!;
    const { dataJson } = event;
    const asStored = event.version === definition.version && !this.privateKeys.get(event.type)!.some((key) => dataJson.includes(key));
    const data = asStored
      ? { stored: dataJson }
      : { parsed: publicData(definition, JSON.parse(dataJson.toString('utf8')) as Record<string, unknown>) };
    return feedRecord(event, token, data);
  }
}

const isStored = (event: RecordedEvent | StoredEvent): event is StoredEvent => 'dataJson' in event;
const tenantOf = (event: RecordedEvent | StoredEvent) => (isStored(event) ? event.tenant : event.metadata.tenant);

/** Event types a client named (a feed's `types`, a webhook's `Types`), each one the feed carries: a 400 naming the others. */
export function feedTypesOf(types: Iterable<string>, known: readonly string[], field: string): Set<string> {
  const asked = new Set(types);
  const knownTypes = new Set(known);
  const unknown = [...asked].filter((t) => !knownTypes.has(t)).slice(0, 10);
  if (unknown.length > 0)
    throw new ValidationError(`Unknown event types: ${unknown.join(', ')}.`, [{ field, message: `unknown types: ${unknown.join(', ')}` }]);
  return asked;
}
