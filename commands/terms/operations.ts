// Accepting an auction's terms (`POST /v1/auctions/{id}/terms-acceptance`), decided on the member's terms stream;
// declared once (defineOperation) for routing, validation and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { idText, z } from '../../src/http/schemas.ts';
import { findAuction } from '../../projections/catalogue/index.ts';
import { termsAcceptances, termsId } from '../../projections/terms/index.ts';
import { termsDecider } from './decide.ts';
import { termsStreamId } from './events.ts';

export const acceptTerms = defineOperation({
  route: {
    number: 11,
    operationId: 'acceptAuctionTerms',
    group: 'Auctions',
    method: 'post',
    path: '/v1/auctions/{id}/terms-acceptance',
    auth: 'member',
  },
  docs: {
    summary: "Accept an auction's terms (idempotent)",
    description:
      'No body. Accepting again changes nothing and answers the first acceptance. No member token, or a member that no longer exists: 401.',
    errors: [404],
    examples: { response: { AuctionId: 2, Accepted: true, AcceptedAt: '2026-11-21T12:00:00.000Z' } },
  },
  input: { params: z.object({ id: idText('The auction whose terms are accepted.') }) },
  output: {
    response: z
      .object({
        AuctionId: z.number().int().min(1).max(2147483647),
        Accepted: z.literal(true),
        AcceptedAt: z.string().max(30).openapi({ format: 'date-time', description: 'When the member first accepted them.' }),
      })
      .openapi('TermsAcceptance'),
  },
  async handler({ params }, ctx) {
    await findAuction(ctx.db, params.id);
    await ctx.commands.run(
      termsStreamId(ctx.tenant.Tenant, ctx.member.Id),
      termsDecider,
      { tenant: ctx.tenant.Tenant, memberId: ctx.member.Id, auctionId: params.id, at: ctx.now.toISOString() },
      { readYourWrites: true },
    );
    const doc = await termsAcceptances(ctx.db).findById(termsId(ctx.member.Id, params.id));
    return { AuctionId: params.id, Accepted: true as const, AcceptedAt: doc?.AcceptedAt ?? ctx.now.toISOString() };
  },
});

export const termsCommandOperations = [acceptTerms];
