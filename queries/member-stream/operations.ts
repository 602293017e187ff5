// The member's own stream (`GET /v1/me/stream`, API.md operation 62): outbid, leading, won, lost, registration
// decisions and failed deliveries of the caller as Server-Sent Events, resumable, with the auction stream's rules.
import { defineOperation, type MemberContext } from '../../src/http/operation.ts';
import { streamTicketQuery, z } from '../../src/http/schemas.ts';
import { ServiceUnavailableError } from '../../src/errors.ts';
import type { TenantFeed } from '../../src/events/feed.ts';
import { StreamedAnswer } from '../../src/http/event-stream.ts';
import { serveMessages } from '../../src/http/message-stream.ts';
import { streamEndEvent, watchCaller, type CredentialWatch } from '../../src/http/credential-watch.ts';
import { StreamSlots } from '../../src/http/stream-slots.ts';
import { incrementsOf } from '../lots/find.ts';
import { MemberStreamHub } from './hub.ts';

/** Member streams one process serves at once (one more is a 503); a house at most half, one client address 100 of a house's (429). */
export const MAX_MEMBER_STREAMS = 2000;
const slots = new StreamSlots('member streams', MAX_MEMBER_STREAMS, 100);
/** Open member streams in this process (the gauge of /metrics). */
export const openMemberStreams = () => slots.held;

const hubs = new WeakMap<TenantFeed, MemberStreamHub>();
function hubOf(ctx: MemberContext, feed: TenantFeed): MemberStreamHub {
  let hub = hubs.get(feed);
  if (!hub) {
    const { db, commands } = ctx;
    hub = new MemberStreamHub({
      feed,
      readStream: (streamId, fromRevision) => commands.readStream(streamId, { fromRevision }),
      caughtUp: (position, types) => commands.waitFor({ position, events: types.map((type) => ({ type })) }),
      increments: () => incrementsOf(db),
      stopping: feed.stopping,
      now: () => Date.now(),
    });
    hubs.set(feed, hub);
  }
  return hub;
}

const money = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const lotId = z.number().int().min(1).max(2147483647);
const dateTime = z.string().max(30).openapi({ format: 'date-time' });

/** Each event type of the member stream and its `data:` (JSON). */
export const memberStreamEvents = {
  outbid: z
    .object({ LotId: lotId, CurrentBid: money.nullable(), MinimumNextBid: money, EndTime: dateTime.nullable() })
    .openapi('MemberOutbidEvent', {
      description: "The caller's maximum no longer leads the lot (another bidder's is higher, or an equal one came first).",
    }),
  leading: z
    .object({ LotId: lotId, CurrentBid: money.nullable(), MaxAmount: money })
    .openapi('MemberLeadingEvent', { description: "The caller's bid took or kept the lead; `MaxAmount` is the caller's own maximum." }),
  won: z
    .object({ LotId: lotId, HammerPrice: money.nullable() })
    .openapi('MemberWonEvent', { description: 'A lot the caller bid on closed, sold to the caller.' }),
  lost: z
    .object({ LotId: lotId })
    .openapi('MemberLostEvent', { description: 'A lot the caller bid on closed, not sold to the caller (or unsold).' }),
  registration: z
    .object({ AuctionId: z.number().int().min(1).max(2147483647), Status: z.enum(['approved', 'rejected']) })
    .openapi('MemberRegistrationEvent', { description: "The house decided the caller's registration for an auction." }),
  'delivery-failed': z
    .object({
      Channel: z.enum(['mail', 'sms', 'push']),
      Template: z.string().max(40),
      Reason: z.enum(['recipient-refused', 'invalid-number', 'gave-up']),
      At: dateTime,
    })
    .openapi('MemberDeliveryFailedEvent', {
      description:
        'A message to the caller could not be delivered and is not tried again: `Template` says which (`confirmation`, `password-reset`, `outbid`, `reminder`, `phone-code`, …), ' +
        '`Reason` why (`recipient-refused`: the mail server refused the address, `invalid-number`, `gave-up`: it could not be delivered for hours). ' +
        'A front end may ask the member to check their address or number.',
    }),
  reset: z
    .object({ Reason: z.string().max(200) })
    .openapi('MemberStreamResetEvent', { description: '`Last-Event-ID` is too old: read `/v1/me/bids` and `/v1/me/registrations` again.' }),
  end: streamEndEvent,
};

export const streamMyChanges = defineOperation({
  route: {
    number: 62,
    operationId: 'streamMyChanges',
    group: 'Timed bidding',
    method: 'get',
    path: '/v1/me/stream',
    auth: 'member',
    tickets: true,
  },
  docs: {
    summary: "The caller's own bidding and registration changes as they happen (Server-Sent Events)",
    description:
      '`text/event-stream` of the caller only: `outbid` `{LotId, CurrentBid, MinimumNextBid, EndTime}` when the caller loses the lead (or bids below a higher maximum: outbid at once), ' +
      "`leading` `{LotId, CurrentBid, MaxAmount}` when the caller's bid takes or keeps the lead (`MaxAmount`: the caller's own maximum), `won` `{LotId, HammerPrice}` and `lost` `{LotId}` " +
      'when a lot the caller bid on closes, `registration` `{AuctionId, Status}` when the house decides a registration of the caller (`approved`, also at once, or `rejected`), ' +
      '`delivery-failed` `{Channel, Template, Reason, At}` when a mail or text to the caller could not be delivered. ' +
      "Never another member's identity or maximum. Each event has an opaque `id:`; a client that reconnects with `Last-Event-ID` gets what it missed (at least the last 24 hours) " +
      'or one `reset`, after which it reads `/v1/me/bids` again. A comment line comes at least every 15 seconds. A browser opens it with its own `EventSource` through a stream ticket ' +
      "(`POST /v1/stream-tickets`, `Path: /v1/me/stream`). The stream ends at the expiry of the ticket (or token) it was opened with, and within a second of a password reset ending the member's sessions " +
      '(or the member removed, the Api-Key no longer acting for the house): its last event is then `end` `{Code, Reason}` (`credential-expired`: open it again with a new ticket; `credential-revoked`: sign in again). ' +
      'A process serves at most 2,000 member streams (`503`); one client address holds at most 100 of a house on a process, ' +
      'and a house at most half (`429`, `Retry-After`).',
    errors: [429, 503],
    problems: ['too-many-streams'],
    examples: {
      response:
        ': stream open\nid: IqwuSWzi3jFRKHKmIwtVZg\n\n' +
        'id: HTH6bF7FdqN-CPwJg4Zi1w\nevent: leading\ndata: {"LotId":2001,"CurrentBid":23300,"MaxAmount":30000}\n\n' +
        'id: OcdJNc4mFFPVMOnpZolEPA\nevent: outbid\ndata: {"LotId":2001,"CurrentBid":30500,"MinimumNextBid":31000,"EndTime":"2026-12-01T18:00:00.000Z"}\n\n' +
        ': heartbeat\n\n',
    },
  },
  input: { query: z.object({ ticket: streamTicketQuery }) },
  output: {
    response: z.string().max(1_000_000).openapi({ description: 'A text/event-stream.' }),
    produces: ['text/event-stream'],
    streamEvents: memberStreamEvents,
  },
  async handler(_input, ctx) {
    const feed = ctx.events;
    if (!feed) throw new ServiceUnavailableError('This process serves no streams.');
    const header = ctx.req.headers['last-event-id'];
    const lastEventId = typeof header === 'string' && header.trim() !== '' ? header.trim() : null;
    // A new stream starts at the log's head as its request arrived (as the auction stream does).
    const after = lastEventId === null ? await feed.head() : await feed.position(lastEventId, 'header.Last-Event-ID');
    const release = slots.take(ctx.tenant.Tenant, ctx.ip);
    let credential: CredentialWatch | null = null;
    try {
      const hub = hubOf(ctx, feed);
      await hub.start(() => feed.head());
      credential = await watchCaller(ctx, { member: true });
      await serveMessages(ctx.res, hub, ctx.member.Id, after, {
        token: feed.token,
        stopping: feed.stopping,
        resetReason: 'The position is too old: read your bids again.',
        credential,
      });
    } finally {
      credential?.stop();
      release();
    }
    return StreamedAnswer.done;
  },
});

export const memberStreamOperations = [streamMyChanges];
