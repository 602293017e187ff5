// Auctions: the list, one auction, its texts, lot numbers and categories (`GET /v1/auctions`, `/v1/auctions/{id}`
// and its `/translations`, `/lot-numbers` and `/categories`), read from the read models; declared once
// (defineOperation) for routing, validation, caching and the OpenAPI document.
import type { Filter } from '../../src/ports/read-models.ts';
import { defineOperation, auctionInPath } from '../../src/http/operation.ts';
import { idText, pagedEnvelope, pageQuery, z } from '../../src/http/schemas.ts';
import { pick } from '../../src/http/language.ts';
import { AUCTION_STATUSES as STATUSES, catalogueAuctions, catalogueLots, findAuction } from '../../projections/catalogue/index.ts';
import { envelope, paging } from '../paging.ts';
import { categoryNode, prune } from '../categories/dto.ts';
import { categoryTree } from '../categories/find.ts';
import { auctionExample, auctionSchema, toAuctionDto } from './dto.ts';

export const listAuctions = defineOperation({
  route: { number: 4, operationId: 'listAuctions', group: 'Auctions', method: 'get', path: '/v1/auctions', auth: 'anon' },
  docs: {
    summary: 'Auctions, by status, paged',
    description: 'Ordered by StartTime (closed auctions: newest first).',
    examples: { response: { Items: [auctionExample], TotalCount: 1, Page: 1, PageSize: 20, TotalPages: 1 } },
  },
  input: {
    query: z.object({
      status: z
        .string()
        .transform((v, ctx) => {
          const found = STATUSES.find((s) => s === v.toLowerCase());
          if (!found) ctx.addIssue({ code: 'custom', message: `must be one of ${STATUSES.join(', ')}` });
          return found ?? 'current';
        })
        .optional()
        .openapi({ type: 'string', enum: [...STATUSES], description: 'Omitted: all auctions.' }),
      ...pageQuery,
    }),
  },
  output: { response: pagedEnvelope(auctionSchema, 'AuctionPage') },
  cache: { catalogue: true },
  async handler({ query }, ctx) {
    const now = ctx.now.toISOString();
    const filter: Filter = { Catalogued: true };
    if (query.status === 'upcoming') filter.StartTime = { $gt: now };
    if (query.status === 'current') Object.assign(filter, { StartTime: { $lte: now }, EndTime: { $gt: now } });
    if (query.status === 'closed') filter.EndTime = { $lte: now };
    const p = paging(query, ctx.tenant);
    const auctions = catalogueAuctions(ctx.db);
    const sort: Array<[string, 1 | -1]> = query.status === 'closed' ? [['EndTime', -1]] : [['StartTime', 1]];
    const [total, docs] = await Promise.all([
      auctions.countDocuments(filter),
      auctions.find(filter, { sort, skip: p.skip, limit: p.pageSize }),
    ]);
    return envelope(
      docs.map((d) => toAuctionDto(d, ctx.language, ctx.tenant.DefaultLanguage, now)),
      total,
      p,
    );
  },
});

export const getAuction = defineOperation({
  route: { number: 5, operationId: 'getAuction', group: 'Auctions', method: 'get', path: '/v1/auctions/{id}', auth: 'anon' },
  docs: {
    summary: 'One auction',
    errors: [404],
    examples: { response: auctionExample },
  },
  input: { params: z.object({ id: idText('The auction id.') }) },
  output: { response: auctionSchema },
  cache: { catalogue: true, auction: auctionInPath },
  async handler({ params }, ctx) {
    const doc = await findAuction(ctx.db, params.id);
    return toAuctionDto(doc, ctx.language, ctx.tenant.DefaultLanguage, ctx.now.toISOString());
  },
});

const auctionParams = z.object({ id: idText('The auction id.') });

export const getAuctionTranslations = defineOperation({
  route: {
    number: 8,
    operationId: 'getAuctionTranslations',
    group: 'Auctions',
    method: 'get',
    path: '/v1/auctions/{id}/translations',
    auth: 'anon',
  },
  docs: {
    summary: "The auction's title and description in every published language",
    description:
      'One entry per language the house publishes in, the default language first; a text not translated yet comes in the default language.',
    errors: [404],
    examples: {
      response: {
        AuctionId: 1,
        Translations: [
          { Language: 'en', Title: 'Spring Design Sale', Description: 'Spring Design Sale — 400 lots.' },
          { Language: 'sv', Title: 'Vårens designauktion', Description: 'Vårens designauktion — 400 föremål.' },
        ],
      },
    },
  },
  input: { params: auctionParams },
  output: {
    response: z
      .object({
        AuctionId: z.number().int().min(1).max(2147483647),
        Translations: z
          .array(
            z.object({
              Language: z
                .string()
                .max(5)
                .regex(/^[a-z]{2}(-[A-Z]{2})?$/),
              Title: z.string().max(500),
              Description: z.string().max(20000),
            }),
          )
          // One per published language; the service sets no smaller limit.
          .max(2147483647),
      })
      .openapi('AuctionTranslations'),
  },
  cache: { catalogue: true, auction: auctionInPath },
  async handler({ params }, ctx) {
    const doc = await findAuction(ctx.db, params.id);
    const { Languages: languages, DefaultLanguage: fallback } = ctx.tenant;
    const ordered = [fallback, ...languages.filter((l) => l !== fallback)];
    return {
      AuctionId: doc.Id,
      Translations: ordered.map((language) => {
        const text = pick(doc.Texts, language, fallback);
        return { Language: language, Title: text?.Title ?? '', Description: text?.Description ?? '' };
      }),
    };
  },
});

export const getAuctionLotNumbers = defineOperation({
  route: {
    number: 9,
    operationId: 'getAuctionLotNumbers',
    group: 'Auctions',
    method: 'get',
    path: '/v1/auctions/{id}/lot-numbers',
    auth: 'anon',
  },
  docs: {
    summary: 'Every lot number of the auction, ascending',
    description: 'Open and closed lots alike: a JSON array of integers.',
    errors: [404],
    examples: { response: [1, 2, 3, 4, 5] },
  },
  input: { params: auctionParams },
  output: {
    // Every lot number of the auction in one answer: the service sets no smaller limit than the int32 range.
    response: z.array(z.number().int().min(0).max(2147483647)).max(2147483647).openapi('LotNumbers'),
  },
  cache: { catalogue: true, auction: auctionInPath },
  async handler({ params }, ctx) {
    await findAuction(ctx.db, params.id);
    // Distinct lot numbers straight from the (AuctionId, LotNumber) index, without reading the lots.
    const numbers = await catalogueLots(ctx.db).countBy({ AuctionId: params.id }, 'LotNumber');
    return numbers.map((n) => Number(n.value)).sort((a, b) => a - b);
  },
});

export const getAuctionCategories = defineOperation({
  route: {
    number: 10,
    operationId: 'getAuctionCategories',
    group: 'Auctions',
    method: 'get',
    path: '/v1/auctions/{id}/categories',
    auth: 'anon',
  },
  docs: {
    summary: 'The categories present in the auction, with its lot counts',
    description:
      "The category tree in the negotiated language, cut to the categories that hold lots of this auction. `LotCount` counts the auction's lots (open or closed) in the category and the categories below it, " +
      'as `GET /v1/lots?AuctionId={id}&CategoryId=...&ShowClosedLots=true` does.',
    errors: [404],
    examples: {
      response: [
        {
          Id: 3,
          ParentId: null,
          Name: 'Furniture',
          SortOrder: 1,
          LotCount: 120,
          Children: [{ Id: 12, ParentId: 3, Name: 'Chairs', SortOrder: 1, LotCount: 45, Children: [] }],
        },
      ],
    },
  },
  input: { params: auctionParams },
  output: { response: z.array(categoryNode).max(2147483647).openapi('AuctionCategories') },
  cache: { catalogue: true, auction: auctionInPath },
  async handler({ params }, ctx) {
    await findAuction(ctx.db, params.id);
    const counts = await catalogueLots(ctx.db).countBy({ AuctionId: params.id, CategoryId: { $exists: true } }, 'CategoryId');
    const direct = new Map(counts.map((c) => [Number(c.value), c.count]));
    const { roots } = await categoryTree(ctx.db, ctx.language, ctx.tenant.DefaultLanguage, direct);
    return prune(roots);
  },
});

export const auctionsQueryOperations = [listAuctions, getAuction, getAuctionTranslations, getAuctionLotNumbers, getAuctionCategories];
