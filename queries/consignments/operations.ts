// The signed-in member's consigned lots and their auctions (`GET /v1/me/consignments` and its `/auctions`), read
// from the read models; declared once (defineOperation) for routing, validation and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { idText, pagedEnvelope, pageQuery, z } from '../../src/http/schemas.ts';
import type { Filter } from '../../src/ports/read-models.ts';
import { catalogueAuctions, catalogueLots } from '../../projections/catalogue/index.ts';
import { envelope, paging } from '../paging.ts';
import { lotExample, lotSchema } from '../lots/dto.ts';
import { lotMapper } from '../lots/find.ts';
import { auctionExample, auctionSchema, toAuctionDto } from '../auctions/dto.ts';

export const listConsignedLots = defineOperation({
  route: { number: 27, operationId: 'listConsignedLots', group: 'Lots', method: 'get', path: '/v1/me/consignments', auth: 'member' },
  docs: {
    summary: 'The lots the signed-in member consigned',
    description:
      "Open and closed lots, in the catalogue's lot shape, by auction and lot number. Only the caller's own: the member comes from the token.",
    examples: { response: { Items: [lotExample], TotalCount: 1, Page: 1, PageSize: 20, TotalPages: 1 } },
  },
  input: { query: z.object({ auctionId: idText('Only lots of this auction.').optional(), ...pageQuery }) },
  output: { response: pagedEnvelope(lotSchema, 'ConsignedLotPage') },
  async handler({ query }, ctx) {
    const filter: Filter = { OwnerId: ctx.member.Id };
    if (query.auctionId !== undefined) filter.AuctionId = query.auctionId;
    const p = paging(query, ctx.tenant);
    const lots = catalogueLots(ctx.db);
    const sort: Array<[string, 1 | -1]> = [
      ['AuctionId', 1],
      ['LotNumber', 1],
    ];
    const [total, docs] = await Promise.all([lots.countDocuments(filter), lots.find(filter, { sort, skip: p.skip, limit: p.pageSize })]);
    return envelope(docs.map(await lotMapper(ctx)), total, p);
  },
});

const consignedAuction = auctionSchema
  .extend({ ConsignedLotCount: z.number().int().min(1).max(2147483647).openapi({ description: "The caller's lots in this auction." }) })
  .openapi('ConsignedAuction');

export const listConsignedAuctions = defineOperation({
  route: {
    number: 28,
    operationId: 'listConsignedAuctions',
    group: 'Lots',
    method: 'get',
    path: '/v1/me/consignments/auctions',
    auth: 'member',
  },
  docs: {
    summary: 'The auctions the signed-in member consigned lots to',
    description: 'Each in the auction shape plus `ConsignedLotCount`, newest start first.',
    examples: { response: { Items: [{ ...auctionExample, ConsignedLotCount: 2 }], TotalCount: 1, Page: 1, PageSize: 20, TotalPages: 1 } },
  },
  input: { query: z.object(pageQuery) },
  output: { response: pagedEnvelope(consignedAuction, 'ConsignedAuctionPage') },
  async handler({ query }, ctx) {
    const counts = await catalogueLots(ctx.db).countBy({ OwnerId: ctx.member.Id }, 'AuctionId');
    const countOf = new Map(counts.map((c) => [Number(c.value), c.count]));
    const docs = countOf.size
      ? await catalogueAuctions(ctx.db).find(
          { _id: { $in: [...countOf.keys()].map(String) }, Catalogued: true },
          { sort: [['StartTime', -1]] },
        )
      : [];
    const p = paging(query, ctx.tenant);
    const nowIso = ctx.now.toISOString();
    const items = docs
      .slice(p.skip, p.skip + p.pageSize)
      .map((d) => ({ ...toAuctionDto(d, ctx.language, ctx.tenant.DefaultLanguage, nowIso), ConsignedLotCount: countOf.get(d.Id) ?? 0 }));
    return envelope(items, docs.length, p);
  },
});

export const consignmentsQueryOperations = [listConsignedLots, listConsignedAuctions];
