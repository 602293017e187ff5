// The latest bids and a lot's bid history (`GET /v1/bids/latest`, `GET /v1/lots/{id}/bids`), read from the read
// models; declared once (defineOperation) for routing, validation, caching and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { boolText, idText, int32Text, z } from '../../src/http/schemas.ts';
import { pick } from '../../src/http/language.ts';
import type { Filter } from '../../src/ports/read-models.ts';
import { catalogueLots } from '../../projections/catalogue/index.ts';
import { bids, type BidType } from '../../projections/bids/index.ts';
import { findLot } from '../lots/find.ts';
import { auctionIdsOfType, readAuctionTypes } from '../auctions/find.ts';

const BID_TYPES = ['online', 'absentee', 'floor', 'phone'] as const satisfies readonly BidType[];

const amount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({ description: 'Minor units of `Currency`.' });
const placedAt = z.string().max(30).openapi({ format: 'date-time', description: 'When the bid was accepted (RFC 3339, UTC).' });
const currency = z
  .string()
  .length(3)
  .regex(/^[A-Z]{3}$/)
  .openapi({ description: 'ISO 4217.' });

export const latestBids = defineOperation({
  route: { number: 20, operationId: 'listLatestBids', group: 'Lots', method: 'get', path: '/v1/bids/latest', auth: 'anon' },
  docs: {
    summary: 'The latest bids across the auction house, newest first',
    description: 'Amounts and times with their lot; never who bid. `Skip` and `Take` page through them.',
    examples: {
      response: [
        {
          LotId: 412,
          AuctionId: 2,
          LotNumber: 12,
          LotTitle: 'Gilded mirror, brass',
          Amount: 125000,
          Currency: 'EUR',
          PlacedAt: '2026-11-22T17:59:12.000Z',
          BidType: 'online',
        },
      ],
    },
  },
  input: {
    query: z.object({
      OnlyOpenLots: boolText('Only bids on lots still open for bidding.').optional(),
      BidType: z.enum(BID_TYPES).optional().openapi({ description: 'Only bids of this kind.' }),
      Skip: int32Text({ min: 0, description: 'Bids to leave out first (default 0).' }).optional(),
      Take: int32Text({ min: 1, max: 100, description: 'Bids to answer, 1 to 100 (default 20).' }).optional(),
      LanguageCode: z.string().max(20).optional().openapi({ description: 'Language of the lot titles; overrides Accept-Language.' }),
      AuctionType: int32Text({
        min: 0,
        description: 'Only bids on lots of auctions of this type (the `AuctionTypeId` of auctions and lots).',
      }).optional(),
    }),
    languageParam: 'LanguageCode',
  },
  output: {
    response: z
      .array(
        z.object({
          LotId: z.number().int().min(1).max(2147483647),
          AuctionId: z.number().int().min(1).max(2147483647),
          LotNumber: z.number().int().min(0).max(2147483647),
          LotTitle: z.string().max(500),
          Amount: amount,
          Currency: currency,
          PlacedAt: placedAt,
          BidType: z.enum(BID_TYPES),
        }),
      )
      .max(100)
      .openapi('LatestBids'),
  },
  cache: { catalogue: true },
  async handler({ query }, ctx) {
    const filter: Filter = {};
    if (query.OnlyOpenLots) filter.LotEndTime = { $gt: ctx.now.toISOString() };
    if (query.BidType) filter.BidType = query.BidType;
    if (query.AuctionType !== undefined) filter.AuctionId = auctionIdsOfType(await readAuctionTypes(ctx.db), query.AuctionType);
    const page = await bids(ctx.db).find(filter, { sort: [['PlacedAt', -1]], skip: query.Skip ?? 0, limit: query.Take ?? 20 });
    const lotIds = [...new Set(page.map((b) => String(b.LotId)))];
    const lots = lotIds.length ? await catalogueLots(ctx.db).find({ _id: { $in: lotIds } }) : [];
    const byId = new Map(lots.map((l) => [l.Id, l]));
    return page.map((b) => {
      const lot = byId.get(b.LotId);
      return {
        LotId: b.LotId,
        AuctionId: lot?.AuctionId ?? b.AuctionId,
        LotNumber: lot?.LotNumber ?? b.LotNumber,
        LotTitle: (lot && pick(lot.Texts, ctx.language, ctx.tenant.DefaultLanguage)?.Title) ?? '',
        Amount: b.Amount,
        Currency: b.Currency,
        PlacedAt: b.PlacedAt,
        BidType: b.BidType,
      };
    });
  },
});

export const lotBidHistory = defineOperation({
  route: { number: 57, operationId: 'getLotBidHistory', group: 'Lots', method: 'get', path: '/v1/lots/{id}/bids', auth: 'anon' },
  docs: {
    summary: "A lot's bid history, newest first",
    description:
      'Every bid the lot received (as many as its `BidCount`): amount, time, kind and, on a timed lot, the pseudonym of the bidder it is (the one who leads after it); never who bid. Newest first in the order ' +
      'the lot took them: on a timed lot the amounts rise, the first entry is the `CurrentBid` and no `PlacedAt` is earlier than the one after it.',
    errors: [404],
    examples: {
      response: {
        LotId: 412,
        Items: [
          { Amount: 125000, Currency: 'EUR', PlacedAt: '2026-11-22T17:59:12.000Z', BidType: 'online', Pseudonym: 2 },
          { Amount: 110000, Currency: 'EUR', PlacedAt: '2026-11-22T17:40:03.000Z', BidType: 'online', Pseudonym: 1 },
        ],
      },
    },
  },
  input: { params: z.object({ id: idText('The lot id.') }) },
  output: {
    response: z
      .object({
        LotId: z.number().int().min(1).max(2147483647),
        // Every bid of the lot in one answer (not paged): the service sets no smaller limit.
        Items: z
          .array(
            z.object({
              Amount: amount,
              Currency: currency,
              PlacedAt: placedAt,
              BidType: z.enum(BID_TYPES),
              Pseudonym: z.number().int().min(1).max(2147483647).nullable().openapi({
                description:
                  "The bidder's pseudonym on this lot (1 for its first bidder, 2 for the next, …; the same on all of one bidder's bids, never who they are); null where the house's own engine took the bid.",
              }),
            }),
          )
          .max(2147483647),
      })
      .openapi('BidHistory'),
  },
  cache: { catalogue: true },
  async handler({ params }, ctx) {
    await findLot(ctx.db, params.id);
    // In the order the lot's stream took its bids (Seq), not by their times: two requests' clocks may cross.
    const history = await bids(ctx.db).find({ LotId: params.id }, { sort: [['Seq', -1]] });
    return {
      LotId: params.id,
      Items: history.map((b) => ({
        Amount: b.Amount,
        Currency: b.Currency,
        PlacedAt: b.PlacedAt,
        BidType: b.BidType,
        Pseudonym: b.Pseudonym ?? null,
      })),
    };
  },
});

export const bidsQueryOperations = [latestBids, lotBidHistory];
