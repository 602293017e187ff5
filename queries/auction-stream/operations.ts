// An auction's live stream (`GET /v1/auctions/{id}/stream`): bids, extensions, closes and live status as
// Server-Sent Events, resumable.
import { defineOperation, type TenantContext } from '../../src/http/operation.ts';
import { idText, streamTicketQuery, z } from '../../src/http/schemas.ts';
import { ServiceUnavailableError } from '../../src/errors.ts';
import type { TenantFeed } from '../../src/events/feed.ts';
import { openEventStream, StreamedAnswer } from '../../src/http/event-stream.ts';
import { StreamSlots } from '../../src/http/stream-slots.ts';
import { findAuction } from '../../projections/catalogue/index.ts';
import { incrementsOf } from '../lots/dto.ts';
import { AuctionStreamHub, STREAM_TYPES, type StreamMessage } from './hub.ts';
import { auctionStreamEvents } from './events.ts';

/**
 * Auction streams one process serves at once (one more is a 503); a house holds at most half of them, and one client
 * address at most 100 of a house's (then a 429: API.md).
 */
export const MAX_AUCTION_STREAMS = 2000;
export const STREAMS_PER_ADDRESS = 100;
const slots = new StreamSlots('auction streams', MAX_AUCTION_STREAMS, STREAMS_PER_ADDRESS);
/** The longest a stream stays silent (a comment line then; API.md: at least every 15 seconds). */
const HEARTBEAT_MS = 14_000;
/** Messages waiting for a slow client; past this its stream ends (it reconnects with Last-Event-ID). */
const QUEUE_LIMIT = 10_000;

/** Open auction streams in this process (the gauge of /metrics). */
export const openAuctionStreams = () => slots.held;

const hubs = new WeakMap<TenantFeed, AuctionStreamHub>();
function hubOf(ctx: TenantContext, feed: TenantFeed): AuctionStreamHub {
  let hub = hubs.get(feed);
  if (!hub) {
    const { db, commands } = ctx;
    hub = new AuctionStreamHub({
      feed,
      db,
      caughtUp: (position, types) => commands.waitFor({ position, events: types.map((type) => ({ type })) }),
      increments: () => incrementsOf(db),
      readStream: (streamId, fromRevision) => commands.readStream(streamId, { fromRevision }),
      stopping: feed.stopping,
      now: () => Date.now(),
    });
    hubs.set(feed, hub);
  }
  return hub;
}

export const streamAuction = defineOperation({
  route: {
    number: 60,
    operationId: 'streamAuction',
    group: 'Timed bidding',
    method: 'get',
    path: '/v1/auctions/{id}/stream',
    auth: 'anon',
    tickets: true,
  },
  docs: {
    summary: "An auction's public changes as they happen (Server-Sent Events)",
    description:
      '`text/event-stream`: `bid` `{LotId, CurrentBid, Currency, BidCount, MinimumNextBid, ReserveMet, EndTime, PlacedAt}`, `extended` `{LotId, EndTime}`, ' +
      '`closed` `{LotId, Sold, HammerPrice}` (for every lot of a timed auction at its end time; unsold: `Sold: false`, `HammerPrice: null`), `live` `{IsLive, CurrentLotId}`; each with an opaque `id:`. A client that reconnects with `Last-Event-ID` gets every event it missed, in order ' +
      '(at least the last 24 hours), or one `reset` event when that is too old, after which it reads the lots again. The stream opens with a comment and an `id:` ' +
      'that names where it starts (no event: an EventSource only takes it as its last event id), so a client dropped before its first event resumes from there. ' +
      'A stream without `Last-Event-ID` carries every event appended after its request arrived. A comment line comes at least every 15 seconds. No member data. ' +
      'Browsers open it with a fetch-based event-source client (with the `Api-Key` and `Authorization` headers), or with their own `EventSource` and no header through a stream ticket (`POST /v1/stream-tickets`: `?ticket=…`). A process serves at most 2,000 streams (`503`); ' +
      'one client address holds at most 100 streams of a house on a process, and a house at most half of its streams (`429`, `Retry-After`).',
    errors: [404, 429, 503],
    problems: ['too-many-streams'],
    examples: {
      response:
        ': stream open\nid: IqwuSWzi3jFRKHKmIwtVZg\n\n' +
        'id: HTH6bF7FdqN-CPwJg4Zi1w\nevent: bid\ndata: {"LotId":2001,"CurrentBid":23300,"Currency":"EUR","BidCount":2,"MinimumNextBid":23800,"ReserveMet":null,"EndTime":"2026-12-01T18:00:00.000Z","PlacedAt":"2026-11-26T10:15:00.000Z"}\n\n' +
        'id: OcdJNc4mFFPVMOnpZolEPA\nevent: extended\ndata: {"LotId":2002,"EndTime":"2026-12-01T18:03:00.000Z"}\n\n' +
        ': heartbeat\n\n',
    },
  },
  input: { params: z.object({ id: idText('The auction id.') }), query: z.object({ ticket: streamTicketQuery }) },
  output: {
    response: z.string().max(1_000_000).openapi({ description: 'A text/event-stream.' }),
    produces: ['text/event-stream'],
    streamEvents: auctionStreamEvents,
  },
  async handler({ params }, ctx) {
    const feed = ctx.events;
    if (!feed) throw new ServiceUnavailableError('This process serves no streams.');
    const header = ctx.req.headers['last-event-id'];
    const lastEventId = typeof header === 'string' && header.trim() !== '' ? header.trim() : null;
    // A new stream starts at the log's head as its request arrived: what is appended while it opens (the auction
    // looked up, this process's hub starting) reaches it, even when the hub has read further meanwhile.
    const opened = lastEventId === null ? feed.head() : null;
    opened?.catch(() => undefined); // awaited below, unless the auction is unknown
    await findAuction(ctx.db, params.id);
    const after = opened ? await opened : await feed.position(lastEventId!, 'header.Last-Event-ID');
    const release = slots.take(ctx.tenant.Tenant, ctx.ip);
    try {
      const hub = hubOf(ctx, feed);
      await hub.start(() => feed.head());
      await serve(hub, params.id, after, ctx);
    } finally {
      release();
    }
    return StreamedAnswer.done;
  },
});

async function serve(hub: AuctionStreamHub, auctionId: number, after: number, ctx: TenantContext): Promise<void> {
  const stream = openEventStream(ctx.res);
  // Ids are positions as this house sees them (opaque: no house can count another's events).
  const token = ctx.events!.token;
  const stopping = ctx.events!.stopping;
  const queue: StreamMessage[] = [];
  let wake: (() => void) | null = null;
  // Listening before the replay is read: a message that comes meanwhile is in both, and sent once (by position).
  const stop = hub.listen(auctionId, (message) => {
    queue.push(message);
    wake?.();
  });
  try {
    const start = hub.replay(auctionId, after);
    let sent = after;
    // Where it starts, as the id of no event: a client dropped before the first event resumes from there.
    await stream.mark(token(after), 'stream open');
    if (start.reset) {
      await stream.event(token(start.position), 'reset', { Reason: 'The position is too old: read the lots again.' });
      sent = start.position;
    }
    queue.unshift(...start.messages);
    while (!stream.gone.aborted && !stopping.aborted) {
      if (queue.length > QUEUE_LIMIT) break;
      const message = queue.shift();
      if (message) {
        if (message.position <= sent) continue;
        if (!(await stream.event(token(message.position), message.event, message.data))) break;
        sent = message.position;
        continue;
      }
      const woken = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), HEARTBEAT_MS);
        const done = () => {
          clearTimeout(timer);
          wake = null;
          stream.gone.removeEventListener('abort', done);
          stopping.removeEventListener('abort', done);
          resolve(true);
        };
        wake = done;
        stream.gone.addEventListener('abort', done, { once: true });
        stopping.addEventListener('abort', done, { once: true });
      });
      if (!woken && !(await stream.comment('heartbeat'))) break;
    }
  } finally {
    stop();
    stream.end();
  }
}

export { STREAM_TYPES };
export const auctionStreamOperations = [streamAuction];
