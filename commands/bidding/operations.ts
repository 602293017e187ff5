// Placing or raising a maximum bid (58), decided on the lot's stream by the bidding decider; declared once
// (defineOperation) for routing, validation and the OpenAPI document.
import { randomUUID } from 'node:crypto';
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { ForbiddenError, NotFoundError } from '../../src/errors.ts';
import { biddingSettings, catalogueAuctions, catalogueLots } from '../../projections/catalogue/index.ts';
import { mayBidReason } from '../registrations/rules.ts';
import { idempotencyKeyOf, onceForKey } from '../idempotency/rules.ts';
import { lotStreamId } from './events.ts';
import { BiddingEndedError, biddingDecider, NotTimedError } from './decide.ts';
import { bidsCounter, extensionsCounter, refusalOf } from './metrics.ts';
import { DEFAULT_EXTENSION_WINDOW_SECONDS, DEFAULT_INCREMENTS, MAX_BID_AMOUNT } from './rules.ts';

const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const placedBidSchema = z
  .object({
    BidId: z.string().uuid().max(36).openapi({ description: 'The id of this maximum bid.' }),
    LotId: z.number().int().min(1).max(2147483647),
    MaxAmount: amount.openapi({ description: "The caller's maximum now (minor units)." }),
    CurrentBid: amount.nullable().openapi({ description: "The lot's current (public) bid after this one." }),
    Currency: z.string().length(3),
    Leading: z.boolean().openapi({ description: 'Whether the caller leads now (a higher maximum of another bidder outbids at once).' }),
    BidCount: z.number().int().min(0).max(2147483647),
    EndTime: z.string().max(30).openapi({ format: 'date-time', description: 'Moved by a bid in the last minutes (soft close).' }),
    MinimumNextBid: amount,
    ReserveMet: z.boolean().nullable().openapi({ description: 'null when the lot has no reserve.' }),
  })
  .openapi('PlacedBid');

export const placeBid = defineOperation({
  route: { number: 58, operationId: 'placeBid', group: 'Timed bidding', method: 'post', path: '/v1/me/bids', auth: 'member' },
  docs: {
    summary: 'Place or raise a maximum bid on a lot of a timed auction',
    description:
      "The service bids for the caller up to `MaxAmount` (proxy bidding): the leader is the highest maximum (equal maxima: the earlier), and `CurrentBid` the lowest amount that beats every other maximum by one increment, raised to the reserve once the leader's maximum reaches it. " +
      '`MaxAmount` is in minor units, at least `MinimumNextBid` (else `400` with the extension `minimumNextBid`), at most 1,000,000,000; a leader may only raise their own maximum. Bids are binding. ' +
      'The caller must be allowed to bid (`GET /v1/me/lots/{lotId}/registration`): otherwise `403` with the extension `reason`. An auction that is not `timed`, or a lot whose `EndTime` has passed, is `409`. ' +
      "A bid that changes `CurrentBid` within the house's extension window before `EndTime` moves `EndTime` to the bid's time plus the window. " +
      '`Idempotency-Key`: the same key and body again answers the first answer and places nothing; another body is `422`.',
    errors: [403, 404, 409, 422],
    examples: {
      body: { LotId: 1001, MaxAmount: 25000 },
      response: {
        BidId: '7d9f2c1e-3b4a-4c5d-8e6f-a7b8c9d0e1f2',
        LotId: 1001,
        MaxAmount: 25000,
        CurrentBid: 12500,
        Currency: 'EUR',
        Leading: true,
        BidCount: 4,
        EndTime: '2026-12-01T18:00:00.000Z',
        MinimumNextBid: 13000,
        ReserveMet: false,
      },
    },
  },
  input: {
    body: z
      .object({
        LotId: z.number().int().min(1).max(2147483647),
        MaxAmount: z.number().int().min(1).max(MAX_BID_AMOUNT).openapi({ description: "Minor units of the lot's currency." }),
      })
      .openapi('PlaceBidRequest'),
  },
  output: { response: placedBidSchema },
  async handler({ body }, ctx) {
    const key = idempotencyKeyOf(ctx.req.headers['idempotency-key']);
    const memberId = ctx.member.Id;
    const request = {
      tenant: ctx.tenant.Tenant,
      scope: `bids-${memberId}`,
      key,
      body: JSON.stringify({ LotId: body.LotId, MaxAmount: body.MaxAmount }),
      at: () => new Date().toISOString(),
    };
    // A refusal is counted by its reason; a repeated request (its first answer again) is not counted again.
    const counted = (error: unknown): never => {
      ctx.counters.inc(bidsCounter, { outcome: refusalOf(error) });
      throw error;
    };
    return onceForKey(ctx.commands, request, async () => {
      const lot = await catalogueLots(ctx.db).findById(String(body.LotId));
      if (!lot) throw new NotFoundError(`Lot ${body.LotId} does not exist.`);
      const [auction, settings] = await Promise.all([catalogueAuctions(ctx.db).findById(String(lot.AuctionId)), biddingSettings(ctx.db)]);
      const bidding = auction?.BiddingMode ?? 'external';
      const at = ctx.now.toISOString();
      if (bidding !== 'timed') throw new NotTimedError();
      if (lot.Closed) throw new BiddingEndedError();
      // Whether the end time has passed is decided on the lot's stream: an extension there may not be projected yet.
      const reason = await mayBidReason(ctx.db, memberId, lot, at, { endDecidedOnStream: true, auction });
      if (reason !== null) throw new ForbiddenError(`The caller may not bid on this lot: ${reason}.`, { reason });
      const increments = settings?.Increments ?? DEFAULT_INCREMENTS;
      const bidId = randomUUID();
      const stream = lotStreamId(ctx.tenant.Tenant, body.LotId);
      const { view, events } = await ctx.commands.run(
        stream,
        biddingDecider,
        {
          type: 'PlaceMaxBid',
          tenant: ctx.tenant.Tenant,
          lotId: body.LotId,
          memberId,
          maxAmount: body.MaxAmount,
          bidId,
          // The service's clock when the bid is decided: no bid is accepted after EndTime.
          at: ctx.now.toISOString(),
          bidding,
          increments,
          extensionWindowSeconds: settings?.ExtensionWindowSeconds ?? DEFAULT_EXTENSION_WINDOW_SECONDS,
        },
        { readYourWrites: true },
      );
      // The caller's standing right after their bid (the runner's view: no second read of the lot's stream).
      const now = view!.standing!;
      ctx.counters.inc(bidsCounter, { outcome: now.leading ? 'leading' : 'outbid' });
      if (events.some((e) => e.type === 'LotEndTimeExtended')) ctx.counters.inc(extensionsCounter);
      return {
        BidId: bidId,
        LotId: body.LotId,
        MaxAmount: now.maxAmount ?? body.MaxAmount,
        CurrentBid: now.currentBid,
        Currency: lot.Currency,
        Leading: now.leading,
        BidCount: now.bidCount,
        EndTime: new Date(now.endTime).toISOString(),
        MinimumNextBid: now.minimumNextBid,
        ReserveMet: now.reserveMet,
      };
    }).catch(counted);
  },
});

export const biddingCommandOperations = [placeBid];
