// Asking to be registered to bid in an auction (`POST /v1/me/registrations/{auctionId}`), decided on the
// registration stream; declared once (defineOperation) for routing, validation and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { idText, z } from '../../src/http/schemas.ts';
import { auctionStatus, findAuction } from '../../projections/catalogue/index.ts';
import { termsId, termsAcceptances } from '../../projections/terms/index.ts';
import { registrationSchema } from './dto.ts';
import { registrationDecider } from './decide.ts';
import { registrationsStreamId } from './events.ts';

export const requestRegistration = defineOperation({
  route: {
    number: 31,
    operationId: 'requestAuctionRegistration',
    group: 'Auction registration',
    method: 'post',
    path: '/v1/me/registrations/{auctionId}',
    auth: 'member',
  },
  docs: {
    summary: 'Ask to be registered to bid in an auction',
    description:
      'No body. Registering is possible while the auction is upcoming or current. A confirmed member is approved at once, unless the house approves this ' +
      "auction's registrations by hand: then the answer is `pending` until the house decides. Asking again changes nothing and answers the current status " +
      '(also once the auction has closed). Closed auction: 409. The auction requires its terms and the caller has not accepted them ' +
      "(`POST /v1/auctions/{id}/terms-acceptance`): 403. Unknown auction, or another auction house's: 404.",
    errors: [403, 404, 409],
    problems: ['terms-not-accepted', 'auction-closed'],
    examples: { response: { AuctionId: 3, Status: 'pending' } },
  },
  input: { params: z.object({ auctionId: idText('The auction to register for.') }) },
  output: { response: registrationSchema },
  async handler({ params }, ctx) {
    const tenant = ctx.tenant.Tenant;
    const memberId = ctx.member.Id;
    const auction = await findAuction(ctx.db, params.auctionId);
    const termsAccepted = auction.RequiresTermsAcceptance
      ? (await termsAcceptances(ctx.db).findById(termsId(memberId, auction.Id))) !== null
      : true;
    const streamId = registrationsStreamId(tenant, memberId, auction.Id);
    const result = await ctx.commands.run(
      streamId,
      registrationDecider,
      {
        type: 'RequestRegistration',
        tenant,
        memberId,
        auctionId: auction.Id,
        at: ctx.now.toISOString(),
        auctionClosed: auctionStatus(auction, ctx.now.toISOString()) === 'closed',
        termsRequired: auction.RequiresTermsAcceptance,
        termsAccepted,
        approval: auction.RegistrationApproval ?? 'automatic',
        memberConfirmed: ctx.member.Validated === true,
      },
      { readYourWrites: true },
    );
    // Nothing appended: the registration already existed; its status is what its own (short) stream says.
    const state = result.events.length
      ? result.events.reduce(registrationDecider.evolve, registrationDecider.initialState())
      : await ctx.commands.fold(streamId, registrationDecider);
    return { AuctionId: auction.Id, Status: state.status === 'none' ? 'pending' : state.status };
  },
});

/** The HTTP operations of registrations that run commands. */
export const registrationsCommandOperations = [requestRegistration];
