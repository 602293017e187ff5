// Free-text lot search ranked by relevance (`GET /v1/lots/search`), read from the search index; declared once
// (defineOperation) for routing, validation, caching and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { boolText, idText, pagedEnvelope, pageQuery, z } from '../../src/http/schemas.ts';
import type { SearchFilter } from '../../src/ports/search.ts';
import type { Filter } from '../../src/ports/read-models.ts';
import { nextClosing } from '../lots/find.ts';
import { catalogueLots } from '../../projections/catalogue/index.ts';
import { LOT_SEARCH } from '../../projections/lot-search/index.ts';
import { envelope, paging } from '../paging.ts';
import { lotExample, lotSchema } from '../lots/dto.ts';
import { lotMapper } from '../lots/find.ts';
import { categoryAndDescendants } from '../categories/find.ts';

const facetSchema = z
  .array(
    z.object({
      Value: z.number().int().min(1).max(2147483647).openapi({ description: 'The category or auction id.' }),
      Count: z.number().int().min(1).max(2147483647).openapi({ description: 'Matching lots (all pages).' }),
    }),
  )
  // One entry per category or auction with matches: the service sets no smaller limit.
  .max(2147483647);

export const searchLots = defineOperation({
  route: { number: 17, operationId: 'searchLots', group: 'Lots', method: 'get', path: '/v1/lots/search', auth: 'anon' },
  docs: {
    summary: 'Free-text lot search, ranked by relevance',
    description:
      'Searches titles, descriptions and attribute values in the negotiated language, typo-tolerant and by prefix; every word must match. ' +
      'Facets count the matching lots (all pages) per category and auction. ' +
      'While the search index cannot be reached or is behind the catalogue, the search answers 503 `search-unavailable` (every other operation still answers).',
    examples: {
      response: {
        Items: [lotExample],
        TotalCount: 1,
        Page: 1,
        PageSize: 20,
        TotalPages: 1,
        Facets: { CategoryId: [{ Value: 12, Count: 1 }], AuctionId: [{ Value: 1, Count: 1 }] },
      },
    },
    problems: ['search-unavailable'],
  },
  input: {
    query: z.object({
      q: z.string().trim().min(1, 'is required').max(200).openapi({ description: 'The words to search for.' }),
      AuctionId: idText().optional(),
      CategoryId: idText('Lots of this category or of any category below it.').optional(),
      ShowClosedLots: boolText('Include lots whose bidding has ended.').optional(),
      ...pageQuery,
      LanguageCode: z.string().max(20).optional().openapi({ description: 'Overrides Accept-Language.' }),
    }),
    languageParam: 'LanguageCode',
  },
  output: {
    response: pagedEnvelope(lotSchema, 'LotSearchPage').extend({
      Facets: z.object({ CategoryId: facetSchema, AuctionId: facetSchema }),
    }),
  },
  cache: { catalogue: true },
  async handler({ query }, ctx) {
    const p = paging(query, ctx.tenant);
    const filter: SearchFilter = { Language: ctx.language };
    // The same lots in the read models, to tell when the answer changes by itself: when the first of them
    // that is open closes (a bound: the words narrow the lots further, never widen them).
    const lots: Filter = {};
    if (query.AuctionId !== undefined) filter.AuctionId = lots.AuctionId = query.AuctionId;
    if (query.CategoryId !== undefined) {
      const ids = await ctx.derived(`category-and-below:${query.CategoryId}`, () => categoryAndDescendants(ctx.db, query.CategoryId!));
      filter.CategoryId = ids.length === 1 ? ids[0] : { in: ids };
      lots.CategoryId = ids.length === 1 ? ids[0] : { $in: ids };
    }
    if (!query.ShowClosedLots) filter.EndTime = { gt: ctx.now.getTime() };
    const now = ctx.now.getTime();
    ctx.changesAt(
      await ctx.derived(
        `next-closing:${JSON.stringify(lots)}`,
        () => nextClosing(catalogueLots(ctx.db), lots, ctx.now.toISOString()),
        (time) => time > now,
      ),
    );
    const result = await ctx.search.search(LOT_SEARCH, {
      q: query.q,
      queryBy: ['Title', 'AttributeText', 'Description'],
      filter,
      facetBy: ['CategoryId', 'AuctionId'],
      page: p.page,
      perPage: p.pageSize,
    });
    const ids = result.hits.map((h) => h.id);
    const docs = ids.length ? await catalogueLots(ctx.db).find({ _id: { $in: ids } }) : [];
    const byId = new Map(docs.map((d) => [d._id, d]));
    const toDto = await lotMapper(ctx);
    const items = ids.flatMap((id) => {
      const doc = byId.get(id);
      return doc ? [toDto(doc)] : [];
    });
    const facet = (name: string) =>
      (result.facets[name] ?? []).filter((f) => f.value !== '0').map((f) => ({ Value: Number(f.value), Count: f.count }));
    return { ...envelope(items, result.found, p), Facets: { CategoryId: facet('CategoryId'), AuctionId: facet('AuctionId') } };
  },
});

export const lotSearchQueryOperations = [searchLots];
