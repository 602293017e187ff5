// The caller's registration for an auction and whether they may bid on a lot (`GET /v1/me/registrations/{auctionId}`,
// `GET /v1/me/lots/{lotId}/registration`), read from the read models; declared once (defineOperation) for routing,
// validation and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { idText, z } from '../../src/http/schemas.ts';
import { findAuction } from '../../projections/catalogue/index.ts';
import { findRegistration } from '../../projections/registrations/index.ts';
import type { RegistrationStatus } from '../../commands/registrations/events.ts';
import { findLot } from '../lots/find.ts';
import { lotRegistrationSchema, registrationExample, registrationSchema } from '../../commands/registrations/dto.ts';
import { mayBidReason } from '../../commands/registrations/rules.ts';

export const getRegistration = defineOperation({
  route: {
    number: 32,
    operationId: 'getAuctionRegistration',
    group: 'Auction registration',
    method: 'get',
    path: '/v1/me/registrations/{auctionId}',
    auth: 'member',
  },
  docs: {
    summary: "The caller's registration for an auction",
    description:
      '`Status` is `pending`, `approved` or `rejected`, or `none` when the caller never asked to be registered (nor did the house register them). ' +
      "Unknown auction, or another auction house's: 404.",
    errors: [404],
    examples: { response: registrationExample },
  },
  input: { params: z.object({ auctionId: idText('The auction id.') }) },
  output: { response: registrationSchema },
  async handler({ params }, ctx) {
    await findAuction(ctx.db, params.auctionId);
    const registration = await findRegistration(ctx.db, ctx.member.Id, params.auctionId);
    const status: RegistrationStatus | 'none' = registration?.Status ?? 'none';
    return { AuctionId: params.auctionId, Status: status };
  },
});

export const getLotRegistration = defineOperation({
  route: {
    number: 33,
    operationId: 'getLotRegistration',
    group: 'Lot registration',
    method: 'get',
    path: '/v1/me/lots/{lotId}/registration',
    auth: 'member',
  },
  docs: {
    summary: 'Whether the caller may bid on a lot, and why not',
    description:
      "`MayBid` is true only when the lot is open (its `EndTime` in the future), its auction is current or live, and the caller's registration for that auction " +
      "is approved, with the auction's terms accepted where it requires them. Otherwise `Reason` says why: the first that applies of `lot-closed`, `auction-not-open`, " +
      "`terms-not-accepted`, `not-registered`, `registration-pending`, `registration-rejected`. Unknown lot, or another auction house's: 404.",
    errors: [404],
    examples: { response: { LotId: 412, MayBid: false, Reason: 'registration-pending' } },
  },
  input: { params: z.object({ lotId: idText('The lot id.') }) },
  output: { response: lotRegistrationSchema },
  async handler({ params }, ctx) {
    const lot = await findLot(ctx.db, params.lotId);
    const reason = await mayBidReason(ctx.db, ctx.member.Id, lot, ctx.now.toISOString());
    return { LotId: params.lotId, MayBid: reason === null, Reason: reason };
  },
});

/** The HTTP operations of registrations that answer from read models. */
export const registrationsQueryOperations = [getRegistration, getLotRegistration];
