// The signed-in member's bids (`GET /v1/me/bids`) and the house's increment table (`GET /v1/increments`), read from
// the read models.
import { defineOperation } from '../../src/http/operation.ts';
import { pagedEnvelope, pageQuery, z } from '../../src/http/schemas.ts';
import { pick } from '../../src/http/language.ts';
import { biddingSettings, catalogueLots } from '../../projections/catalogue/index.ts';
import { memberBids, type MemberBidStatus } from '../../projections/bidding/index.ts';
import { DEFAULT_INCREMENTS } from '../../commands/bidding/rules.ts';
import { envelope, paging } from '../paging.ts';

const STATUSES = ['leading', 'outbid', 'won', 'lost'] as const satisfies readonly MemberBidStatus[];
const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const myBidSchema = z
  .object({
    LotId: z.number().int().min(1).max(2147483647),
    AuctionId: z.number().int().min(1).max(2147483647),
    LotNumber: z.number().int().min(0).max(2147483647),
    LotTitle: z.string().max(500),
    MaxAmount: amount.openapi({ description: "The caller's maximum on the lot." }),
    CurrentBid: amount.nullable(),
    Currency: z.string().length(3),
    Status: z.enum(STATUSES).openapi({ description: '`leading` or `outbid` while the lot is open; `won` or `lost` once it closed.' }),
    EndTime: z.string().max(30).openapi({ format: 'date-time' }),
    LastBidAt: z.string().max(30).openapi({ format: 'date-time', description: 'When the caller last placed or raised their maximum.' }),
  })
  .openapi('MyBid');

export const listMyBids = defineOperation({
  route: { number: 59, operationId: 'listMyBids', group: 'Timed bidding', method: 'get', path: '/v1/me/bids', auth: 'member' },
  docs: {
    summary: "The signed-in member's bids, one per lot, newest first",
    description: 'One item per lot the caller bid on (timed auctions). `status` filters by `leading`, `outbid`, `won` or `lost`.',
    examples: {
      response: {
        Items: [
          {
            LotId: 1001,
            AuctionId: 6,
            LotNumber: 1,
            LotTitle: 'Carved armchair, oak',
            MaxAmount: 25000,
            CurrentBid: 12500,
            Currency: 'EUR',
            Status: 'leading',
            EndTime: '2026-12-01T18:00:00.000Z',
            LastBidAt: '2026-11-26T10:15:00.000Z',
          },
        ],
        TotalCount: 1,
        Page: 1,
        PageSize: 20,
        TotalPages: 1,
      },
    },
  },
  input: {
    query: z.object({
      status: z.enum(STATUSES).optional().openapi({ description: 'Only these; omitted: all.' }),
      ...pageQuery,
    }),
  },
  output: { response: pagedEnvelope(myBidSchema, 'MyBidsPage') },
  async handler({ query }, ctx) {
    const p = paging(query, ctx.tenant);
    const filter = { MemberId: ctx.member.Id, ...(query.status ? { Status: query.status } : {}) };
    const [docs, total] = await Promise.all([
      memberBids(ctx.db).find(filter, { sort: [['LastBidAt', -1]], skip: p.skip, limit: p.pageSize }),
      memberBids(ctx.db).countDocuments(filter),
    ]);
    const lots = await catalogueLots(ctx.db).find({ _id: { $in: docs.map((d) => String(d.LotId)) } });
    const lotOf = new Map(lots.map((l) => [l.Id, l]));
    const items = docs.map((d) => {
      const lot = lotOf.get(d.LotId);
      return {
        LotId: d.LotId,
        AuctionId: d.AuctionId,
        LotNumber: lot?.LotNumber ?? 0,
        LotTitle: (lot && pick(lot.Texts, ctx.language, ctx.tenant.DefaultLanguage)?.Title) ?? '',
        MaxAmount: d.MaxAmount,
        CurrentBid: lot?.CurrentBid ?? null,
        Currency: lot?.Currency ?? '',
        Status: d.Status,
        EndTime: lot?.EndTime ?? '',
        LastBidAt: d.LastBidAt,
      };
    });
    return envelope(items, total, p);
  },
});

export const listIncrements = defineOperation({
  route: { number: 61, operationId: 'listIncrements', group: 'Timed bidding', method: 'get', path: '/v1/increments', auth: 'anon' },
  docs: {
    summary: "The house's increment table",
    description:
      'Ascending rows `{From, Increment}` (minor units): from `From` up to the next row, the next bid is at least the current one plus `Increment`.',
    examples: { response: DEFAULT_INCREMENTS.map((r) => ({ From: r.from, Increment: r.increment })) },
  },
  output: {
    response: z
      .array(z.object({ From: amount, Increment: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }).openapi('IncrementRow'))
      .max(100),
  },
  async handler(_input, ctx) {
    const increments = (await biddingSettings(ctx.db))?.Increments ?? DEFAULT_INCREMENTS;
    return increments.map((r) => ({ From: r.from, Increment: r.increment }));
  },
});

export const biddingQueryOperations = [listMyBids, listIncrements];
