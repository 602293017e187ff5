// The two Server-Sent Event streams opened the way a browser can: a ticket (POST /v1/stream-tickets) is a URL the
// browser's own EventSource opens with no header. The browser reconnects by itself (sending Last-Event-ID); when the
// service ends a stream because its ticket expired (`end`), or a ticket stops working, a new one is fetched and opened,
// and the caller is told to re-read, as after a `reset`, since what came meanwhile may be missed. A stream whose
// credential was revoked (`end` `credential-revoked`: a password reset, the Api-Key withdrawn) is closed for good.
import type { BidderClient } from './client.ts';
import type { components } from './schema.ts';
import { ok, ProblemError } from './problems.ts';
import type { AuctionStreamEvents, MemberStreamEvents } from './stream-events.ts';

/** A stream's path, as a ticket names it. */
export type StreamPath = '/v1/me/stream' | `/v1/auctions/${number}/stream`;

/** `POST /v1/stream-tickets`: a URL of the stream to open with no header, and until when its token holds. */
export type StreamTicket = components['schemas']['StreamTicket'];

/** The `end` event's data: why the service ended the stream (its credential expired, or was revoked). */
export type StreamEnd = components['schemas']['StreamEnd'];

/** The service ended a stream because its credential was revoked (`end` `credential-revoked`): it is closed for good. */
export class StreamEndedError extends Error {
  constructor(readonly end: StreamEnd) {
    super(`The service ended the stream: ${end.Code}. ${end.Reason}`);
    this.name = 'StreamEndedError';
  }
}

/** What the client needs of an EventSource (the browser's own, or the `eventsource` package's in Node). */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((event: Event) => unknown) | null;
  onerror: ((event: Event) => unknown) | null;
  addEventListener(type: string, listener: (event: MessageEvent) => void): void;
  close(): void;
}
export type EventSourceConstructor = new (url: string) => EventSourceLike;

/** EventSource's readyState once it has given up (a non-200 answer): it will not reconnect by itself. */
const CLOSED = 2;

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export type StreamHandlers<E> = { [K in keyof E]?: (data: E[K], event: { id: string; type: K }) => void };

export interface StreamOptions<E> {
  /** A handler per event type; `reset` may be left to `onResync`. */
  on: StreamHandlers<E>;
  /**
   * Events may have been missed: re-read what the stream keeps up to date. `reset`: the service could not go on
   * from the last event's position; `reopened`: a new ticket was opened after the last one stopped working.
   */
  onResync?: (why: 'reset' | 'reopened') => void;
  onState?: (state: StreamState) => void;
  /**
   * A ticket could not be had, or an event's data was not JSON; the stream goes on (or, given up, is `closed`). A
   * StreamEndedError: the service ended the stream as its credential was revoked (`closed`).
   */
  onError?: (error: unknown) => void;
  /** Another EventSource (in Node: `import { EventSource } from 'eventsource'`); default the global one. */
  EventSource?: EventSourceConstructor;
  /** The first wait before a new ticket (doubling up to `maxRetryMs`). */
  retryMs?: number;
  maxRetryMs?: number;
}

export interface LiveStream {
  readonly state: StreamState;
  close(): void;
}

/** Statuses of a ticket request that another try would not change: the stream gives up (`closed`). */
const FINAL = new Set([400, 401, 403, 404]);

/** A ticket for one stream, made from the client's token (the member stream needs a member token). */
export async function streamTicket(client: BidderClient, path: StreamPath): Promise<StreamTicket> {
  const ticket = ok(await client.POST('/v1/stream-tickets', { body: { Path: path } }));
  // The Url as the service gave it; a relative one is the service's own.
  return { ...ticket, Url: new URL(ticket.Url, `${client.baseUrl}/`).toString() };
}

/** Opens a stream through tickets and keeps it open until `close()`; events arrive typed by their name. */
export function openStream<E>(client: BidderClient, path: StreamPath, options: StreamOptions<E>): LiveStream {
  const Found = options.EventSource ?? (globalThis as { EventSource?: EventSourceConstructor }).EventSource;
  if (!Found) throw new Error('No EventSource here: pass one in the options (in Node, the `eventsource` package).');
  const stream = new TicketedStream(client, path, options as StreamOptions<unknown>, Found);
  void stream.connect();
  return {
    get state() {
      return stream.state;
    },
    close: () => stream.close(),
  };
}

type AnyHandler = (data: unknown, event: { id: string; type: string }) => void;

/** One stream's life: a ticket, an EventSource on it, a new ticket when that one stops working (openStream). */
class TicketedStream {
  state: StreamState = 'connecting';
  private source: EventSourceLike | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private wasOpen = false;
  private readonly types: Set<string>;

  constructor(
    private readonly client: BidderClient,
    private readonly path: StreamPath,
    private readonly options: StreamOptions<unknown>,
    private readonly Source: EventSourceConstructor,
  ) {
    this.types = new Set([...Object.keys(options.on), 'reset', 'end']);
  }

  private get closed() {
    return this.state === 'closed';
  }

  private setState(next: StreamState) {
    if (this.state === next) return;
    this.state = next;
    this.options.onState?.(next);
  }

  /** A new ticket after a growing wait (doubling from retryMs up to maxRetryMs, with jitter). */
  private later() {
    const retryMs = this.options.retryMs ?? 1000;
    const maxRetryMs = this.options.maxRetryMs ?? 30_000;
    const wait = Math.min(maxRetryMs, retryMs * 2 ** this.failures++) * (0.75 + Math.random() / 2);
    this.timer = setTimeout(() => void this.connect(), wait);
  }

  /**
   * The service ended the stream (`end`) and will refuse its ticket: an expired one is replaced at once (a re-read
   * once open: the new EventSource cannot resume); a revoked credential closes the stream.
   */
  private ended(opened: EventSourceLike, end: StreamEnd) {
    opened.close();
    if (this.source !== opened || this.closed) return;
    this.source = null;
    if (end.Code === 'credential-expired') {
      this.setState('reconnecting');
      this.failures = 0;
      void this.connect();
      return;
    }
    this.setState('closed');
    this.options.onError?.(new StreamEndedError(end));
  }

  async connect(): Promise<void> {
    this.timer = null;
    if (this.closed) return;
    let ticket: StreamTicket;
    try {
      ticket = await streamTicket(this.client, this.path);
    } catch (error) {
      this.options.onError?.(error);
      if (error instanceof ProblemError && FINAL.has(error.status)) this.setState('closed');
      else if (!this.closed) this.later();
      return;
    }
    if (this.closed) return;
    const opened = new this.Source(ticket.Url);
    this.source = opened;
    this.watch(opened);
    for (const type of this.types) opened.addEventListener(type, (event) => this.dispatch(opened, type, event));
  }

  /** The EventSource's own opens and errors: the browser reconnects by itself until it gives up. */
  private watch(opened: EventSourceLike) {
    let openedOnce = false;
    opened.onopen = () => {
      this.failures = 0;
      this.setState('open');
      // The browser's own reconnects resume with Last-Event-ID; only a new EventSource after an open one may miss events.
      if (openedOnce) return;
      openedOnce = true;
      if (this.wasOpen) this.options.onResync?.('reopened');
      this.wasOpen = true;
    };
    opened.onerror = () => {
      if (this.closed || this.source !== opened) return;
      // CONNECTING: the browser reconnects by itself with Last-Event-ID. CLOSED: it gave up; a new ticket then.
      this.setState('reconnecting');
      if (opened.readyState === CLOSED) {
        opened.close();
        this.source = null;
        this.later();
      }
    };
  }

  /** One event to its handler, its data parsed (`reset` also asks for a re-read, `end` ends this EventSource). */
  private dispatch(opened: EventSourceLike, type: string, event: MessageEvent) {
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch (error) {
      this.options.onError?.(error);
      return;
    }
    if (type === 'reset') this.options.onResync?.('reset');
    const handler = (this.options.on as Record<string, AnyHandler | undefined>)[type];
    handler?.(data, { id: event.lastEventId, type });
    if (type === 'end') this.ended(opened, data as StreamEnd);
  }

  close() {
    this.setState('closed');
    if (this.timer) clearTimeout(this.timer);
    this.source?.close();
    this.source = null;
  }
}

/** An auction's public changes: `bid`, `extended` (soft close), `closed`, `live` (and `reset`, `end`). */
export function openAuctionStream(client: BidderClient, auctionId: number, options: StreamOptions<AuctionStreamEvents>): LiveStream {
  return openStream(client, `/v1/auctions/${auctionId}/stream`, options);
}

/** The signed-in member's own changes: `outbid`, `leading`, `won`, `lost`, `registration` (a member token; and `reset`, `end`). */
export function openMemberStream(client: BidderClient, options: StreamOptions<MemberStreamEvents>): LiveStream {
  return openStream(client, '/v1/me/stream', options);
}
