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
  const Source: EventSourceConstructor = Found;
  const retryMs = options.retryMs ?? 1000;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  let state: StreamState = 'connecting';
  let source: EventSourceLike | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let failures = 0;
  let wasOpen = false;
  const closed = () => state === 'closed';
  const setState = (next: StreamState) => {
    if (state === next) return;
    state = next;
    options.onState?.(next);
  };
  const later = () => {
    const wait = Math.min(maxRetryMs, retryMs * 2 ** failures++) * (0.75 + Math.random() / 2);
    timer = setTimeout(connect, wait);
  };
  const types = new Set([...Object.keys(options.on), 'reset', 'end']);

  /**
   * The service ended the stream (`end`) and will refuse its ticket: an expired one is replaced at once (a re-read
   * once open: the new EventSource cannot resume); a revoked credential closes the stream.
   */
  const ended = (opened: EventSourceLike, end: StreamEnd) => {
    opened.close();
    if (source !== opened || closed()) return;
    source = null;
    if (end.Code === 'credential-expired') {
      setState('reconnecting');
      failures = 0;
      void connect();
      return;
    }
    setState('closed');
    options.onError?.(new StreamEndedError(end));
  };

  async function connect() {
    timer = null;
    if (closed()) return;
    let ticket: StreamTicket;
    try {
      ticket = await streamTicket(client, path);
    } catch (error) {
      options.onError?.(error);
      if (error instanceof ProblemError && FINAL.has(error.status)) setState('closed');
      else if (!closed()) later();
      return;
    }
    if (closed()) return;
    const opened = new Source(ticket.Url);
    source = opened;
    let openedOnce = false;
    opened.onopen = () => {
      failures = 0;
      setState('open');
      // The browser's own reconnects resume with Last-Event-ID; only a new EventSource after an open one may miss events.
      if (openedOnce) return;
      openedOnce = true;
      if (wasOpen) options.onResync?.('reopened');
      wasOpen = true;
    };
    opened.onerror = () => {
      if (closed() || source !== opened) return;
      // CONNECTING: the browser reconnects by itself with Last-Event-ID. CLOSED: it gave up; a new ticket then.
      setState('reconnecting');
      if (opened.readyState === CLOSED) {
        opened.close();
        source = null;
        later();
      }
    };
    for (const type of types)
      opened.addEventListener(type, (event) => {
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch (error) {
          options.onError?.(error);
          return;
        }
        if (type === 'reset') options.onResync?.('reset');
        const handler = (options.on as Record<string, ((data: unknown, event: { id: string; type: string }) => void) | undefined>)[type];
        handler?.(data, { id: event.lastEventId, type });
        if (type === 'end') ended(opened, data as StreamEnd);
      });
  }

  void connect();
  return {
    get state() {
      return state;
    },
    close() {
      setState('closed');
      if (timer) clearTimeout(timer);
      source?.close();
      source = null;
    },
  };
}

/** An auction's public changes: `bid`, `extended` (soft close), `closed`, `live` (and `reset`, `end`). */
export function openAuctionStream(client: BidderClient, auctionId: number, options: StreamOptions<AuctionStreamEvents>): LiveStream {
  return openStream(client, `/v1/auctions/${auctionId}/stream`, options);
}

/** The signed-in member's own changes: `outbid`, `leading`, `won`, `lost`, `registration` (a member token; and `reset`, `end`). */
export function openMemberStream(client: BidderClient, options: StreamOptions<MemberStreamEvents>): LiveStream {
  return openStream(client, '/v1/me/stream', options);
}
