// An auction's live stream (`GET /v1/auctions/{id}/stream`): bids, extensions, closes and live status as
// Server-Sent Events, resumable.
import { defineOperation, type TenantContext } from '../../src/http/operation.ts';
import { idText, streamTicketQuery, z } from '../../src/http/schemas.ts';
import { ServiceUnavailableError } from '../../src/errors.ts';
import type { TenantFeed } from '../../src/events/feed.ts';
import { StreamedAnswer } from '../../src/http/event-stream.ts';
import { serveMessages } from '../../src/http/message-stream.ts';
import { watchCaller, type CredentialWatch } from '../../src/http/credential-watch.ts';
import { StreamSlots } from '../../src/http/stream-slots.ts';
import { findAuction } from '../../projections/catalogue/index.ts';
import { incrementsOf } from '../lots/find.ts';
import { AuctionStreamHub, STREAM_TYPES } from './hub.ts';
import { auctionStreamEvents } from './messages.ts';

/**
 * Auction streams one process serves at once (one more is a 503); a house holds at most half of them, and one client
 * address at most 100 of a house's (then a 429: API.md).
 */
export const MAX_AUCTION_STREAMS = 2000;
export const STREAMS_PER_ADDRESS = 100;
const slots = new StreamSlots('auction streams', MAX_AUCTION_STREAMS, STREAMS_PER_ADDRESS);

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
      'The stream ends at the expiry of the ticket (or token) it was opened with, and within a second of that credential being revoked (its Api-Key no longer acting for the house, ' +
      'the house closing its public access to an anonymous token): its last event is then `end` `{Code, Reason}` (`credential-expired`: open it again with a new ticket; `credential-revoked`). ' +
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
    let credential: CredentialWatch | null = null;
    try {
      const hub = hubOf(ctx, feed);
      await hub.start(() => feed.head());
      credential = await watchCaller(ctx, { member: false });
      await serveMessages(ctx.res, hub, params.id, after, {
        token: feed.token,
        stopping: feed.stopping,
        resetReason: 'The position is too old: read the lots again.',
        credential,
      });
    } finally {
      credential?.stop();
      release();
    }
    return StreamedAnswer.done;
  },
});

export { STREAM_TYPES };
export const auctionStreamOperations = [streamAuction];
