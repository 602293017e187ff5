// The command handler of POST /v1/me/bids, placing or raising a maximum bid: the Idempotency-Key, the look-ups (lot, auction,
// the house's increments), whether the member may bid, the bidding decider on the lot's stream, and the counts.
import { randomUUID } from 'node:crypto';
import type { MemberContext } from '../../src/http/operation.ts';
import { defineCounter } from '../../src/counters.ts';
import { AppError, ForbiddenError, NotFoundError, ValidationError, WriteContentionError } from '../../src/errors.ts';
import { biddingSettings, catalogueAuctions, catalogueLots } from '../../projections/catalogue/index.ts';
import { mayBidReason } from '../registrations/rules.ts';
import { onceForKey } from '../../src/idempotency/index.ts';
import { lotStreamId } from '../lots/events.ts';
import { bidCostEstimate, bidEstimateReads } from '../costs/find.ts';
import { BidBelowMinimumError, BiddingEndedError, biddingDecider, NotTimedError } from './decide.ts';
import { DEFAULT_EXTENSION_WINDOW_SECONDS, DEFAULT_INCREMENTS } from './rules.ts';

const bidsCounter = defineCounter({
  name: 'bidder_bids_total',
  help: 'Maximum bids asked for over POST /v1/me/bids (validated bodies), by outcome: leading or outbid when accepted, else why refused',
  labelNames: ['outcome'],
});

const extensionsCounter = defineCounter({
  name: 'bidder_lot_extensions_total',
  help: "Bids that moved a lot's end time (soft close)",
  labelNames: [],
});

/** The outcome label of a refused bid. */
function refusalOf(error: unknown): string {
  if (error instanceof BidBelowMinimumError) return 'below_minimum';
  if (error instanceof BiddingEndedError) return 'ended';
  if (error instanceof NotTimedError) return 'not_timed';
  if (error instanceof ForbiddenError) return 'forbidden';
  if (error instanceof NotFoundError) return 'not_found';
  if (error instanceof ValidationError) return 'invalid';
  if (error instanceof WriteContentionError) return 'contention';
  if (error instanceof AppError && error.status === 422) return 'key_reused';
  if (error instanceof AppError && error.status === 409) return 'key_in_use';
  return 'error';
}

type BidBody = { LotId: number; MaxAmount: number };

/** The Idempotency-Key's request of a bid: the member's own scope, the body as the key's fingerprint. */
function bidRequest(ctx: MemberContext, body: BidBody, key: string | undefined) {
  return {
    tenant: ctx.tenant.Tenant,
    scope: `bids-${ctx.member.Id}`,
    key,
    body: JSON.stringify({ LotId: body.LotId, MaxAmount: body.MaxAmount }),
    at: () => new Date().toISOString(),
    // Every wait of a bid is bounded well under this: a claim left by a failed try (its store away) frees the key soon.
    abandonedAfterMs: 30_000,
  };
}

/**
 * What a bid is decided with, each refusal in its order: the lot (404), its auction's mode (409 unless timed),
 * whether it closed (409), whether the member may bid (403); with the house's settings and the cost estimate.
 */
async function readBidContext(ctx: MemberContext, body: BidBody, at: string) {
  const memberId = ctx.member.Id;
  // The look-ups go out together where the stores can send them as one (the lot's with the settings' and the
  // buyer's; the auction's with the member's terms and registration); each refusal still comes in its order.
  const lotRead = catalogueLots(ctx.db).findById(String(body.LotId));
  const settingsRead = biddingSettings(ctx.db);
  // Read before the bid is placed, with the bid's own (a store that fails here places nothing).
  const estimateReads = bidEstimateReads(ctx.db, memberId);
  // Awaited below; a refusal before then leaves them unread.
  for (const read of [settingsRead, estimateReads.buyer, estimateReads.rulesDoc]) read.catch(() => {});
  const lot = await lotRead;
  if (!lot) throw new NotFoundError(`Lot ${body.LotId} does not exist.`);
  // Whether the end time has passed is decided on the lot's stream: an extension there may not be projected yet.
  const [auction, settings, reason] = await Promise.all([
    catalogueAuctions(ctx.db).findById(String(lot.AuctionId)),
    settingsRead,
    mayBidReason(ctx.db, memberId, lot, at, { endDecidedOnStream: true }),
  ]);
  const bidding = auction?.BiddingMode ?? 'external';
  if (bidding !== 'timed') throw new NotTimedError();
  if (lot.Closed) throw new BiddingEndedError();
  if (reason !== null) throw new ForbiddenError(reason, `The caller may not bid on this lot: ${reason}.`);
  const estimate = await bidCostEstimate(
    estimateReads,
    { lot, auction },
    {
      memberId,
      lotId: body.LotId,
      maxAmount: body.MaxAmount,
      language: ctx.language,
      fallbackLanguage: ctx.tenant.DefaultLanguage,
      houseCountry: ctx.tenant.Country ?? null,
    },
  );
  return { lot, bidding, settings, estimate };
}

type BidContext = Awaited<ReturnType<typeof readBidContext>>;

/** The bidding decider run on the lot's stream (read your writes): the events and the caller's standing after them. */
function decideBid(ctx: MemberContext, body: BidBody, bidId: string, { bidding, settings }: BidContext) {
  return ctx.commands.run(
    lotStreamId(ctx.tenant.Tenant, body.LotId),
    biddingDecider,
    {
      type: 'PlaceMaxBid',
      tenant: ctx.tenant.Tenant,
      lotId: body.LotId,
      memberId: ctx.member.Id,
      maxAmount: body.MaxAmount,
      bidId,
      // The service's clock when the bid is decided: no bid is accepted after EndTime.
      at: ctx.now.toISOString(),
      bidding,
      increments: settings?.Increments ?? DEFAULT_INCREMENTS,
      extensionWindowSeconds: settings?.ExtensionWindowSeconds ?? DEFAULT_EXTENSION_WINDOW_SECONDS,
    },
    { readYourWrites: true },
  );
}

type Standing = NonNullable<NonNullable<Awaited<ReturnType<typeof decideBid>>['view']>['standing']>;

/** The PlacedBid answer: the caller's standing right after their bid. */
function placedBid(body: BidBody, bidId: string, now: Standing, { lot, estimate }: BidContext) {
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
    CostEstimate: estimate,
  };
}

/** The caller's standing on the lot right after the bid (the PlacedBid answer). */
export async function placeMaxBid(ctx: MemberContext, body: BidBody, key: string | undefined) {
  // A refusal is counted by its reason; a repeated request (its first answer again) is not counted again.
  const counted = (error: unknown): never => {
    ctx.counters.inc(bidsCounter, { outcome: refusalOf(error) });
    throw error;
  };
  return onceForKey(ctx.commands, bidRequest(ctx, body, key), async () => {
    const bid = await readBidContext(ctx, body, ctx.now.toISOString());
    const bidId = randomUUID();
    const { view, events } = await decideBid(ctx, body, bidId, bid);
    // The caller's standing right after their bid (the runner's view: no second read of the lot's stream).
    const now = view!.standing!;
    ctx.counters.inc(bidsCounter, { outcome: now.leading ? 'leading' : 'outbid' });
    if (events.some((e) => e.type === 'LotEndTimeExtended')) ctx.counters.inc(extensionsCounter);
    return placedBid(body, bidId, now, bid);
  }).catch(counted);
}
