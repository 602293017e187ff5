// Whether a live sale is running and which lot is up (`GET /v1/live`, `GET /v1/auctions/{id}/live`), read from the
// read models; declared once (defineOperation) for routing, validation, caching and the OpenAPI document.
import { defineOperation, auctionInPath } from '../../src/http/operation.ts';
import { idText, z } from '../../src/http/schemas.ts';
import { catalogueAuctions, findAuction } from '../../projections/catalogue/index.ts';

const nullableId = z.number().int().min(1).max(2147483647).nullable();

export const getLiveStatus = defineOperation({
  route: { number: 29, operationId: 'getLiveStatus', group: 'Live auctions', method: 'get', path: '/v1/live', auth: 'anon' },
  docs: {
    summary: 'Whether a live sale of the auction house is running now, and which lot is up',
    description:
      '`IsLive: false` with null ids when no sale is live. When several sales are live at once, the one that started first is answered.',
    examples: { response: { IsLive: true, AuctionId: 2, CurrentLotId: 412 } },
  },
  output: {
    response: z
      .object({
        IsLive: z.boolean(),
        AuctionId: nullableId.openapi({ description: 'The live auction, or null.' }),
        CurrentLotId: nullableId.openapi({ description: 'The lot being sold now, or null.' }),
      })
      .openapi('LiveStatus'),
  },
  cache: { catalogue: true },
  async handler(_input, ctx) {
    const [live] = await catalogueAuctions(ctx.db).find({ Catalogued: true, IsLive: true }, { sort: [['StartTime', 1]], limit: 1 });
    return live
      ? { IsLive: true, AuctionId: live.Id, CurrentLotId: live.CurrentLotId }
      : { IsLive: false, AuctionId: null, CurrentLotId: null };
  },
});

export const getAuctionLiveStatus = defineOperation({
  route: {
    number: 30,
    operationId: 'getAuctionLiveStatus',
    group: 'Live auctions',
    method: 'get',
    path: '/v1/auctions/{id}/live',
    auth: 'anon',
  },
  docs: {
    summary: 'Whether one auction is live now, which lot is up, and when the live sale starts',
    description: "`StartsAt` is when the live sale is scheduled to start, as the house announced it; else the auction's start time.",
    errors: [404],
    examples: { response: { IsLive: false, CurrentLotId: null, StartsAt: '2026-12-01T18:00:00.000Z' } },
  },
  input: { params: z.object({ id: idText('The auction id.') }) },
  output: {
    response: z
      .object({
        IsLive: z.boolean(),
        CurrentLotId: nullableId,
        StartsAt: z.string().max(30).openapi({ format: 'date-time', description: 'RFC 3339, UTC.' }),
      })
      .openapi('AuctionLiveStatus'),
  },
  cache: { catalogue: true, auction: auctionInPath },
  async handler({ params }, ctx) {
    const auction = await findAuction(ctx.db, params.id);
    return {
      IsLive: auction.IsLive,
      CurrentLotId: auction.IsLive ? auction.CurrentLotId : null,
      StartsAt: auction.LiveStartsAt ?? auction.StartTime,
    };
  },
});

export const liveQueryOperations = [getLiveStatus, getAuctionLiveStatus];
